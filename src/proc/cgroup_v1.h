// Where this process's own group of a cgroup v1 hierarchy is, as a path of this mount namespace:
// where the sandbox's v1 limit groups go (isolate/sandbox/limits.cc), below whoever confined us.
//
// /proc/self/cgroup names the group from the hierarchy's root ("4:memory:/docker/<id>"), but a
// mount need not show the hierarchy from its root: Docker on a cgroup v1 host mounts the
// container's own group at /sys/fs/cgroup/memory (mountinfo's root field is "/docker/<id>"), so
// the group is the mount itself, not /sys/fs/cgroup/memory/docker/<id>. The path is the mount
// point joined with the group's path below the mount's root.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace aw {

// From the texts of /proc/self/cgroup and /proc/self/mountinfo: the folder of our own group in
// the v1 hierarchy that has `controller` ("memory", "pids", "cpu"). Of the mounts of that
// hierarchy that reach the group, the last listed (a later mount over the same place hides an
// earlier one). An error says why there is none: no such v1 hierarchy, none mounted, or mounted
// only from a group that does not hold ours.
Result<std::string> v1_group_dir(std::string_view self_cgroup, std::string_view mountinfo,
                                 std::string_view controller);

// The same for this process, from its /proc/self files.
Result<std::string> own_v1_group_dir(std::string_view controller);

}  // namespace aw
