// The process tree below a pid, read from /proc (this kernel has no /proc/PID/task/TID/children
// everywhere, so the portable way is a scan of /proc/*/stat). Internal to proc/.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

// Every live (not zombie) descendant of root, parents before children.
std::vector<pid_t> live_descendants(pid_t root);

// /proc/PID/comm without the newline, or "?" when the process is gone.
std::string comm_of(pid_t pid);

// True when pid exists and is not a zombie.
bool is_live(pid_t pid);

}  // namespace aw
