// The owner's approval of a plugin by hash (issue 28 item 3, docs/plugins.md#approval): what was
// approved is the plugin's code (every file of its program's folder: name, mode and SHA-256 of its
// bytes) and its declared permissions (kind, command, hosts, paths, secrets, variables, limits).
// `plugins: {run: true}` alone no longer runs a plugin: one whose code or permissions changed since
// `awaywork plugin approve NAME` (or PATH, its folder) is refused, with what changed and the
// command to approve again.
//
// The record is the owner's (STATE/plugins/NAME/approval.json, 0600 in a 0700 folder): a plugin
// never has the state folder in its sandbox, so it cannot approve itself. Only the record's hashes
// are compared; nothing in it is run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "config/config.h"

namespace aw {

// What approval covers, as found now.
struct PluginPrint {
  std::string folder;                        // the program's real folder (or the program alone)
  std::map<std::string, std::string> files;  // path under folder -> "MODE SHA256" (or "-> TARGET")
  nlohmann::json permissions;                // the declaration, every key (see permissions_of)
  std::string sha256;                        // of files and permissions together
};

// The plugin's code and permissions now. An Error when its program is missing or its folder is
// too large to be one plugin's (more than 10000 files or 256 MiB: name a folder of its own).
Result<PluginPrint> plugin_print(const PluginConfig& p);

// Writes STATE/plugins/NAME/approval.json (plugins_dir = STATE/plugins) for what plugin_print
// finds now; returns it.
Result<PluginPrint> approve_plugin(const PluginConfig& p, const std::string& plugins_dir);

enum class ApprovalState { current, unapproved, changed };
const char* to_string(ApprovalState s);

struct Approval {
  ApprovalState state = ApprovalState::unapproved;
  std::vector<std::string> changes;  // "file notify.sh changed", "net: added evil.example" ...
  std::string approved_sha256;       // "" when never approved
};

// How the plugin stands against its record. An Error only when its code cannot be read or the
// record is unreadable (a damaged record reads as an Error, never as approved).
Result<Approval> plugin_approval(const PluginConfig& p, const std::string& plugins_dir);

// The refusal for a plugin not current: names the plugin, what changed and the command.
std::string approval_refusal(const PluginConfig& p, const Approval& a);

// What `awaywork plugin list` shows of one declared plugin.
struct PluginStatus {
  std::string name, kind;
  nlohmann::json permissions;  // the declaration (permissions_of)
  Approval approval;
  bool disabled = false;  // `awaywork plugin disable NAME` (plugin/disable.h): it never runs
  std::string error;  // its code could not be read or its record is damaged: never approved
};

// Every plugin the config declares, by name, with how it stands against its record.
std::vector<PluginStatus> plugin_statuses(const PluginsConfig& plugins,
                                          const std::string& plugins_dir);

// The declared plugin NAME; an Error names the declared plugins when NAME is not one of them.
Result<const PluginConfig*> declared_plugin(const PluginsConfig& plugins, const std::string& name);

// `awaywork plugin approve NAME|PATH`: the declared plugins TARGET names. A name declared under
// plugins: is that plugin; anything else is a path (relative to the working folder): the folder of
// a plugin's program, or the program itself, which may be declared under several names (each is
// returned, in name order). An Error names TARGET and the fix when it is neither: a path that does
// not exist or cannot be read, a file or folder no declared plugin runs from (with the declared
// plugins and their folders).
Result<std::vector<const PluginConfig*>> approval_targets(const PluginsConfig& plugins,
                                                          const std::string& target);

// `awaywork plugin approve NAME`: the declared plugin NAME approved as it is now. An Error names
// the declared plugins when NAME is not one of them.
Result<PluginPrint> approve_declared(const PluginsConfig& plugins, const std::string& plugins_dir,
                                     const std::string& name);

}  // namespace aw
