// `awaywork plugin approve|list|disable|enable`: load the config, one call to src/plugin/
// (approval.h, disable.h), print.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "base/inert.h"
#include "base/json_write.h"
#include "cli/cmd_plugin.h"
#include "config/config.h"
#include "plugin/approval.h"
#include "plugin/call.h"
#include "plugin/disable.h"

namespace aw {

namespace {

int report(const Error& e, int code) {
  fmt::print(stderr, "awaywork plugin: {}\n", e.message);
  return code;
}

Result<Config> config_of(const GlobalOptions& g) {
  return load_given_config(g.config);
}

// The machine's word for a state (--json), beside to_string's for people.
const char* state_key(const PluginStatus& s) {
  if (!s.error.empty()) return "error";
  switch (s.approval.state) {
    case ApprovalState::current:
      return "approved";
    case ApprovalState::unapproved:
      return "unapproved";
    case ApprovalState::changed:
      return "changed";
  }
  return "error";
}

// A manifest's value that is not a string (an object, say) is shown as JSON, written without a
// throw whatever it holds (base/json_write.h).
std::string joined(const nlohmann::json& list) {
  std::string s;
  for (const auto& v : list)
    s += (s.empty() ? "" : " ") + (v.is_string() ? v.get<std::string>() : json_text(v));
  return s.empty() ? "none" : s;
}

std::string render_status(const PluginStatus& s) {
  const nlohmann::json& p = s.permissions;
  std::string state = s.error.empty() ? to_string(s.approval.state) : "error: " + s.error;
  if (s.error.empty() && s.approval.state != ApprovalState::current)
    state += fmt::format(" (awaywork plugin approve {})", s.name);
  if (s.disabled) state += fmt::format(", disabled (awaywork plugin enable {})", s.name);
  std::string out = fmt::format("{}  {}  {}\n", s.name, s.kind, state);
  out += fmt::format("  command: {}\n", joined(p["command"]));
  // write: is in the permissions only when declared (approval.cc keeps older records valid).
  for (const char* key : {"net", "read", "write", "secrets", "env"})
    out +=
        fmt::format("  {}: {}\n", key, joined(p.contains(key) ? p[key] : nlohmann::json::array()));
  out += fmt::format("  limits: timeout {} ms, memory {} MiB, processes {}\n",
                     p["timeout_ms"].get<int64_t>(), p["memory_bytes"].get<uint64_t>() >> 20,
                     p["processes"].get<int>());
  for (const auto& c : s.approval.changes) out += fmt::format("  changed: {}\n", c);
  return inert(out);
}

int cmd_plugin_list(const GlobalOptions& g) {
  auto cfg = config_of(g);
  if (!cfg) return report(cfg.error(), kExitUsage);
  auto statuses = plugin_statuses(cfg->plugins, plugin_host(*cfg).plugins_dir);
  if (g.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& s : statuses)
      arr.push_back({{"name", s.name},
                     {"kind", s.kind},
                     {"state", state_key(s)},
                     {"approved", s.error.empty() && s.approval.state == ApprovalState::current},
                     {"disabled", s.disabled},
                     {"changes", s.approval.changes},
                     {"error", s.error},
                     {"permissions", s.permissions}});
    fmt::print("{}\n", json_text({{"run", cfg->plugins.run}, {"plugins", arr}}, 2));
    return kExitDone;
  }
  fmt::print("plugins: {}\n", cfg->plugins.run ? "on (plugins: {run: true})"
                                               : "off on this machine (plugins: {run: false})");
  if (statuses.empty()) fmt::print("no plugins declared (docs/plugins.md)\n");
  for (const auto& s : statuses) fmt::print("{}", render_status(s));
  return kExitDone;
}

// TARGET is a declared name or a path (the plugin's folder): each plugin it names is approved.
int cmd_plugin_approve(const GlobalOptions& g, const std::string& target) {
  auto cfg = config_of(g);
  if (!cfg) return report(cfg.error(), kExitUsage);
  auto targets = approval_targets(cfg->plugins, target);
  if (!targets) return report(targets.error(), kExitUsage);
  nlohmann::json approved = nlohmann::json::array();
  for (const PluginConfig* p : *targets) {
    auto print = approve_plugin(*p, plugin_host(*cfg).plugins_dir);
    if (!print) return report(print.error(), kExitFailed);
    if (g.json) {
      approved.push_back({{"name", p->name},
                          {"sha256", print->sha256},
                          {"folder", print->folder},
                          {"files", print->files.size()},
                          {"permissions", print->permissions}});
      continue;
    }
    fmt::print("approved plugin {}: {} file(s) in {} and its permissions, sha256 {}\n", p->name,
               print->files.size(), inert(print->folder), print->sha256);
  }
  if (g.json) {
    // One plugin (by name, or the one plugin of a folder) prints as before; a folder declared
    // under several names prints them all.
    fmt::print("{}\n", json_text(approved.size() == 1 ? approved[0] : approved, 2));
  }
  return kExitDone;
}

int cmd_plugin_disable(const GlobalOptions& g, const std::string& name, bool disabled) {
  auto cfg = config_of(g);
  if (!cfg) return report(cfg.error(), kExitUsage);
  if (auto ok = set_declared_disabled(cfg->plugins, plugin_host(*cfg).plugins_dir, name, disabled);
      !ok)
    return report(ok.error(), cfg->plugins.plugins.contains(name) ? kExitFailed : kExitUsage);
  if (g.json) {
    fmt::print("{}\n", json_text({{"name", name}, {"disabled", disabled}}, 2));
    return kExitDone;
  }
  if (disabled)
    fmt::print("disabled plugin {}: it does not run until awaywork plugin enable {}\n", name, name);
  else
    fmt::print("enabled plugin {}: it runs again as approved{}\n", name,
               cfg->plugins.run ? "" : " (plugins are off on this machine: plugins: {run: false})");
  return kExitDone;
}

}  // namespace

void add_plugin_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code) {
  auto* plugin = app.add_subcommand(
      "plugin",
      "approve, list, disable and enable the owner's plugins (docs/plugins.md; not the agents' "
      "plugins)");
  plugin->require_subcommand(1);
  auto name = std::make_shared<std::string>();  // filled by parse, read by the callback
  auto* approve = plugin->add_subcommand(
      "approve",
      "approve a plugin's code and permissions as they are now (by hash), by its name or its "
      "folder");
  approve
      ->add_option("plugin", *name,
                   "the plugin's name under plugins: in the config, or its folder (the folder of "
                   "its command:)")
      ->required();
  approve->add_flag("--json", g.json, "print JSON");
  approve->callback([&g, name, exit_code] { *exit_code = cmd_plugin_approve(g, *name); });
  auto* list = plugin->add_subcommand(
      "list", "list the declared plugins, their kind, permissions and approval");
  list->add_flag("--json", g.json, "print JSON");
  list->callback([&g, exit_code] { *exit_code = cmd_plugin_list(g); });
  for (bool off : {true, false}) {
    auto* sw = plugin->add_subcommand(
        off ? "disable" : "enable",
        off ? "stop plugin NAME: it never runs until enabled (recorded in the state folder)"
            : "let plugin NAME run again, as approved");
    sw->add_option("name", *name, "the plugin's name under plugins: in the config")->required();
    sw->add_flag("--json", g.json, "print JSON");
    sw->callback([&g, name, exit_code, off] { *exit_code = cmd_plugin_disable(g, *name, off); });
  }
}

}  // namespace aw
