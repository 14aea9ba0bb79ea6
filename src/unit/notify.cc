#include "unit/notify.h"

#include <fmt/format.h>

#include "check/redact.h"
#include "plugin/call.h"
#include "plugin/disable.h"
#include "unit/plugin_secrets.h"

namespace aw {

namespace {

std::vector<const PluginConfig*> notifiers_of(const Config& cfg) {
  std::vector<const PluginConfig*> out;
  for (const auto& [name, p] : cfg.plugins.plugins)
    if (p.kind == PluginKind::notifier) out.push_back(&p);
  return out;
}

// One call of `method` to each notifier; each failure a note in u.
void call_each(const Config& cfg, const std::vector<const PluginConfig*>& notifiers,
               std::string_view method, const nlohmann::json& params, UnitRecord& u,
               const std::vector<std::string>& literals) {
  PluginHost host = plugin_host(cfg);
  PluginSecrets secrets;
  secrets.lend_to(host);
  for (const PluginConfig* p : notifiers) {
    secrets.forget();
    auto r = call_plugin(*p, host, method, params);
    if (r) continue;
    u.notes.push_back(fmt::format("notifier plugin {} failed at {} (the unit's outcome stands): {}",
                                  p->name, method,
                                  redact_all(r.error().message, secrets.redaction(literals))));
  }
}

}  // namespace

nlohmann::json unit_started_params(const UnitRecord& u) {
  return {{"unit", u.id},
          {"repo", u.repo},
          {"agent", u.agent},
          {"base_ref", u.base_ref},
          {"issue", u.issue},
          {"issue_url", u.issue_url},
          {"issue_title", u.issue_title},
          {"created_at", u.created_at}};
}

void notify_unit_started(const Config& cfg, UnitRecord& u,
                         const std::vector<std::string>& literals) {
  auto notifiers = notifiers_of(cfg);
  if (notifiers.empty() || !cfg.plugins.run) return;
  // A disabled notifier is left out silently here: the end says so once.
  notifiers = enabled_plugins(notifiers, plugin_host(cfg).plugins_dir, nullptr);
  if (notifiers.empty()) return;
  call_each(cfg, notifiers, "unit_started", unit_started_params(u), u, literals);
}

nlohmann::json unit_ended_params(const UnitRecord& u, const std::string& reason) {
  return {{"unit", u.id},
          {"repo", u.repo},
          {"state", to_string(u.state)},
          {"reason", reason},
          {"verdict", u.verdict},
          {"refusals", u.refusals.size()},
          {"pull_request", u.pull_request},
          {"branch", u.branch},
          {"commit", u.commit},
          {"patch_files", u.patch_files},
          {"issue", u.issue},
          {"issue_url", u.issue_url},
          {"issue_title", u.issue_title},
          {"created_at", u.created_at},
          {"ended_at", u.ended_at}};
}

void notify_unit_ended(const Config& cfg, UnitRecord& u, const std::string& reason,
                       const std::vector<std::string>& literals) {
  auto notifiers = notifiers_of(cfg);
  if (notifiers.empty()) return;
  if (!cfg.plugins.run) {
    u.notes.push_back(fmt::format(
        "{} notifier plugin(s) not run: plugins are off on this machine (plugins: {{run: false}})",
        notifiers.size()));
    return;
  }
  std::vector<std::string> disabled;
  notifiers = enabled_plugins(notifiers, plugin_host(cfg).plugins_dir, &disabled);
  for (const std::string& name : disabled)
    u.notes.push_back(fmt::format(
        "notifier plugin {} not run: you disabled it (awaywork plugin enable {} runs it again)",
        name, name));
  if (notifiers.empty()) return;
  call_each(cfg, notifiers, "unit_ended", unit_ended_params(u, reason), u, literals);
}

}  // namespace aw
