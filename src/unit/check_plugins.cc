// The owner's check plugins on an accepted patch (check_plugins.h).
#include "unit/check_plugins.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "check/redact.h"
#include "plugin/check.h"
#include "plugin/disable.h"
#include "unit/plugin_secrets.h"

namespace aw {

void check_with_plugins(const Config& cfg, std::string_view repo, std::string_view base_ref,
                        const std::string& patch, UnitRecord& u,
                        const std::vector<std::string>& secrets, Verdict& v) {
  if (!v.accepted) return;
  auto plugins = check_plugins_of(cfg.plugins);
  if (plugins.empty()) return;
  if (!cfg.plugins.run) {
    u.notes.push_back(fmt::format(
        "{} check plugin(s) not run: plugins are off on this machine (plugins: {{run: false}})",
        plugins.size()));
    return;
  }
  PluginHost host = plugin_host(cfg);
  // A check the owner disabled is the owner's word, like the switch for all of them: a note.
  std::vector<std::string> disabled;
  plugins = enabled_plugins(plugins, host.plugins_dir, &disabled);
  for (const std::string& name : disabled)
    u.notes.push_back(fmt::format(
        "check plugin {} not run: you disabled it (awaywork plugin enable {} runs it again)", name,
        name));
  if (plugins.empty()) return;
  auto requests = nlohmann::json::array();
  for (const auto& r : v.requests) requests.push_back(to_json(r));
  nlohmann::json params = check_params(u.id, repo, base_ref, v.paths, patch, std::move(requests));
  PluginSecrets lent;
  lent.lend_to(host);
  auto refusals = run_check_plugins(plugins, host, params);
  if (refusals.empty()) return;
  std::vector<std::string> redact = lent.redaction(secrets);
  for (const PluginRefusal& r : refusals)
    v.refusals.push_back({"plugin.check", redact_all(r.path, redact), r.line,
                          redact_all(fmt::format("plugin {}: {}", r.plugin, r.reason), redact),
                          "plugin"});
  v.accepted = false;
  v.requests.clear();  // a refused verdict carries none
}

size_t plugin_refusals(const Verdict& v) {
  size_t n = 0;
  for (const Refusal& r : v.refusals) n += r.rule == "plugin.check";
  return n;
}

}  // namespace aw
