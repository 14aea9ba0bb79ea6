// Where a sandboxed phase's limits come from on this machine, in words for doctor and the record:
// cgroup v2 groups that get the controllers (root's, or a non-root owner's delegated group or
// systemd user scope), cgroup v1 groups (root), or none (then RLIMIT_NPROC alone caps processes).
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

// enabled: the config's limits are on (`limits: off` = false).
std::string describe_limits(bool enabled);

// Can the sandbox make its cgroup v1 limit groups here? Tried, not assumed (root inside a
// container is handed read-only hierarchies, mounted from its own group): in each of memory,
// pids and cpu a group is made where a unit's would go (below our own group, as mounted here)
// and removed again. The memory folder it went in; else what failed, and where.
Result<std::string> probe_v1_limits();

}  // namespace aw
