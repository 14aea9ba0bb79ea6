// doctor's checks for isolation `user`, and the gate `run` applies before a unit.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "doctor/doctor.h"

namespace aw {

struct UserCheckInput {
  std::string worker = "awaywork";  // config `worker_user`
  std::string owner;                // the owner's name, uid, gid and home (the caller)
  uid_t owner_uid = 0;
  gid_t owner_gid = 0;
  std::string owner_home;
  std::string path_value;                   // the PATH phases get
  std::string env_file;                     // ~/.config/awaywork/env
  std::string sysctl_dir = "/proc/sys/fs";  // where protected_* are read
};

// The caller as owner: getuid/getpwuid, $PATH, $XDG_CONFIG_HOME/awaywork/env.
Result<UserCheckInput> current_owner(const std::string& worker);

// ✔/✖ for: sudo present; the worker exists, is not the owner, has no home, nologin, its own group
// only, is in cron.deny and at.deny; the owner's two sudoers lines exact and nothing else naming
// the worker or the unit folders; the worker itself may run nothing with sudo; the owner's home
// closed; fs.protected_hardlinks and fs.protected_symlinks 1; PATH entries under the owner's home
// that the worker cannot reach; the env file 0600; /proc not hidepid (needed to prove the
// worker's processes gone).
// Runs `sudo -n -l` as the caller, so call it as the owner.
std::vector<Check> user_checks(const UserCheckInput& in);

// The provider `awaywork doctor` registers for "user": the caller as owner, `worker` as worker.
Registry::Provider user_provider(const std::string& worker);

// `awaywork doctor --print-setup` for the caller as owner.
Result<std::string> setup_for_current_owner(const std::string& worker);

// What `run` calls before a unit with isolation `user`: an Error listing every failing check and
// its fix when any fails (e.g. fs.protected_symlinks=0).
Status user_isolation_ready(const UserCheckInput& in);

// What `awaywork probe` requires: every check above except those about what a worker could read
// of the owner's (the home closed, the env file 0600, PATH under the home), which the probe exists
// to show as leaks. The handoff's own safety (sudo, the worker's shape, the two sudoers lines,
// protected_{hard,sym}links, /proc) is still required. Those it lets pass come back as warnings.
Result<std::vector<std::string>> user_handoff_ready(const UserCheckInput& in);

// Whether a user with uid/gid/groups may search (x) every directory of path (mode bits only).
bool can_reach(const std::string& path, uid_t uid, const std::vector<gid_t>& gids);

}  // namespace aw
