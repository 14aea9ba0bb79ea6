// A plugin's write: folders (issue 28, docs/plugins.md#what-a-plugin-gets-and-nothing-else): what
// it writes besides its own data folder, lent read-write in its sandbox. The config and the
// manifest only say "absolute, not / nor the home"; what each path is on this machine is checked
// here, before each call and at approval, because a folder named in the config can be a link
// into awaywork's state by the time the plugin runs:
//
//   AW_TRY(std::vector<std::string> w, plugin_write_paths(p, host.base));  // real paths, to bind
//
// Each must be an existing folder (its real path, links resolved, is what the sandbox binds, at
// that path), and none of: / or the owner's home itself (or a folder above it); awaywork's state
// folder (its database, approvals, every plugin's data and switch: a plugin that could write
// there could approve or re-enable itself), its config folder or file, its secret store; or the
// plugin's own folder (its approved code), each whether the path is it, inside it or above it.
// The error names the path, what it is and the fix.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/sandbox/plan.h"

namespace aw {

// The real paths of p.write, each checked against base (owner_home, state_dir, config_dir,
// secret_files); an Error for the first that may not be lent.
Result<std::vector<std::string>> plugin_write_paths(const PluginConfig& p,
                                                    const SandboxPaths& base);

}  // namespace aw
