// Where a sandboxed phase's limits come from on this machine, in words for doctor and the record:
// cgroup v2 groups that get the controllers (root's, or a non-root owner's delegated group or
// systemd user scope), cgroup v1 groups (root), or none (then RLIMIT_NPROC alone caps processes).
#pragma once

#include <string>

namespace aw {

// enabled: the config's limits are on (`limits: off` = false).
std::string describe_limits(bool enabled);

}  // namespace aw
