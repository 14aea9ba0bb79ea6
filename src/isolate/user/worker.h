// The worker Unix user of isolation `user` (DESIGN.md section 3): who it is and how it is shaped.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

inline constexpr const char* kDefaultWorker = "awaywork";

struct WorkerUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string home;                 // from passwd; must not exist
  std::string shell;                // must be /usr/sbin/nologin
  std::string group;                // name of the primary group; must equal name
  std::vector<std::string> others;  // every other group the worker is in (must be empty)
};

// getpwnam + the worker's groups. An Error when the user does not exist, is root, or has a name
// that cannot be written safely into a sudoers line.
Result<WorkerUser> lookup_worker(const std::string& name);

// The worker's home in passwd: a path that must never exist. Per worker, below /nonexistent,
// because /nonexistent itself is shared (nobody's home) and tools run as another user have been
// seen to create it, dotfiles and all.
inline std::string worker_home(const std::string& worker) {
  return "/nonexistent/" + worker;
}

// Names that go into sudoers lines and chown arguments unquoted: [A-Za-z0-9_][A-Za-z0-9_.-]*.
bool is_plain_user_name(const std::string& name);

// Whether `name` has a line of its own in a deny file (/etc/cron.deny, /etc/at.deny).
bool listed_in(const std::string& deny_file, const std::string& name);

}  // namespace aw
