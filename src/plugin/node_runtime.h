// `"runtime": "node"` in a plugin's manifest (issue 28 item 4): the entry is a script run by the
// system's Node.js with Node's own permission model as a second layer inside awaywork's OS
// sandbox, which stays the boundary. Node reads only the plugin's folder, its declared `read:`
// paths, its data folder and its `write:` folders, writes only those two and the sandbox's
// private /tmp, and starts no child process, worker, addon or inspector (the model's defaults
// once it is on).
//
//   AW_TRY(std::vector<std::string> argv, node_plugin_argv(p, data));
//   // {"/usr/bin/node", "--experimental-permission", "--allow-fs-read=/opt/notify", ...,
//   //  "--allow-fs-write=STATE/plugins/notify/data", "--allow-fs-write=/tmp",
//   //  "/opt/notify/notify.js", ARGS...}
//
// Node's permission model came with Node 20 (`--experimental-permission`; `--permission` from
// 22.13 and 23.5): an older node (Debian 12's is 18) is refused with the version it needs, never
// run without the second layer.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

inline constexpr int kNodeMinMajor = 20;

struct NodeVersion {
  int major = 0, minor = 0, patch = 0;
};

// "v20.20.2" (what `node --version` prints, a newline allowed) → {20, 20, 2}; an Error otherwise.
Result<NodeVersion> parse_node_version(const std::string& text);

// The flag that turns the permission model on for that version: "--permission" where Node has
// it (22.13 or later in 22, 23.5 or later), "--experimental-permission" before.
const char* node_permission_flag(const NodeVersion& v);

// The node a plugin runs with: the first `node` on the sandbox's PATH (kSandboxPath, the system's
// folders: what the sandbox can see), its real path and its version (asked once per process and
// path). An Error when there is none or it is older than 20, naming what is needed and the fix.
struct NodeProgram {
  std::string path;
  NodeVersion version;
};
Result<NodeProgram> find_plugin_node(const std::string& plugin_name);

// The argv of a node plugin's call: node, its permission flags for the plugin's folder (the
// folder of command[0]), its read: paths, its data folder and its write: folders (real paths, as
// the sandbox binds them), then command[0] and the rest of command. An Error for a path Node's
// flags cannot carry (a comma separates paths in Node 20).
Result<std::vector<std::string>> node_plugin_argv(const PluginConfig& p, const std::string& data);

}  // namespace aw
