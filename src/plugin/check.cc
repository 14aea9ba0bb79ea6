#include "plugin/check.h"

#include <fmt/format.h>

#include "base/json_read.h"
#include "plugin/protocol.h"

namespace aw {

namespace {

PluginRefusal refusal(std::string_view plugin, std::string reason) {
  return {std::string(plugin), "", 0, std::move(reason)};
}

// A malformed answer, as the one refusal it is: the check did not say yes.
std::vector<PluginRefusal> malformed(std::string_view plugin, std::string_view what) {
  return {refusal(plugin, fmt::format("check plugin {} answered no valid verdict ({}); a check "
                                      "that cannot be read refuses",
                                      plugin, what))};
}

}  // namespace

std::vector<const PluginConfig*> check_plugins_of(const PluginsConfig& plugins) {
  std::vector<const PluginConfig*> out;
  for (const auto& [name, p] : plugins.plugins)
    if (p.kind == PluginKind::check) out.push_back(&p);
  return out;
}

nlohmann::json check_params(std::string_view unit, std::string_view repo, std::string_view base_ref,
                            const std::vector<std::string>& paths, std::string_view patch,
                            nlohmann::json requests) {
  return {{"unit", std::string(unit)},         {"repo", std::string(repo)},
          {"base_ref", std::string(base_ref)}, {"paths", paths},
          {"patch", std::string(patch)},       {"requests", std::move(requests)}};
}

std::vector<PluginRefusal> check_result_refusals(const nlohmann::json& result,
                                                 std::string_view plugin) {
  std::string what = fmt::format("plugin {}'s verdict", plugin);
  JsonRead r(result, what);
  auto accepted = r.boolean("accepted");
  if (!accepted) return malformed(plugin, accepted.error().message);
  auto items = r.array_or("refusals");
  if (!items) return malformed(plugin, items.error().message);
  if (*accepted) {
    // A yes that also gives reasons is not a clear yes.
    if (!items->empty()) return malformed(plugin, "\"accepted\": true with refusals");
    return {};
  }
  if (items->empty())
    return malformed(plugin, "\"accepted\": false needs at least one entry in \"refusals\"");
  std::vector<PluginRefusal> out;
  for (const JsonRead& item : *items) {
    if (out.size() == kCheckMaxRefusals) {
      out.push_back(refusal(
          plugin, fmt::format("and {} more reasons, not kept", items->size() - kCheckMaxRefusals)));
      break;
    }
    auto reason = item.str("reason");
    auto path = item.str_or("path", "");
    auto line = item.int_or<int>("line", 0, 0);
    if (!reason || reason->empty() || !path || !line)
      return malformed(plugin, !reason ? reason.error().message
                               : !path ? path.error().message
                               : !line ? line.error().message
                                       : "an empty \"reason\"");
    out.push_back({std::string(plugin), plugin_words(*path), *line, plugin_words(*reason)});
  }
  return out;
}

std::vector<PluginRefusal> run_check_plugins(const std::vector<const PluginConfig*>& plugins,
                                             const PluginHost& host, const nlohmann::json& params) {
  std::vector<PluginRefusal> out;
  for (const PluginConfig* p : plugins) {
    auto call = call_plugin(*p, host, kCheckMethod, params);
    if (!call) {
      out.push_back(refusal(p->name, fmt::format("check plugin {} refused the patch because it "
                                                 "could not check it: {}",
                                                 p->name, call.error().message)));
      continue;
    }
    for (auto& r : check_result_refusals(call->result, p->name)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace aw
