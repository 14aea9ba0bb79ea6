// `awaywork host lock`: harden a GitHub-hosted runner (or awaywork's image at build time) so that
// the worker user can reach nothing of the runner's (DESIGN.md section 11, docs/host-lock.md).
// Run as root. Idempotent: every step changes only what is not already as it must be, and says
// what it changed; a second run changes nothing.
//   LockOptions o;  o.runner = "runner";
//   AW_TRY(LockReport r, host_lock(o));   // r.changes empty = already locked
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

// The steps, in the order they run. The kernel is first: a refused kernel changes nothing.
enum class LockStep { kernel, user, home, walk, acl, sudoers };

const char* to_string(LockStep s);
Result<LockStep> parse_lock_step(const std::string& name);

struct LockOptions {
  std::string worker = "awaywork";
  std::string runner;      // who runs awaywork (owner of the sudoers lines); required
  std::string root = "/";  // the file system the walk clears
  std::string sysctl_dir = "/proc/sys/fs";  // where protected_{hard,sym}links are read and set
  std::set<LockStep> skip;                  // test only: the positive controls skip one step
  // Building an image: the kernel is the one the image will run on, so the kernel step is left to
  // where it runs (doctor and every run check protected_{hard,sym}links there).
  bool for_image = false;
};

struct LockChange {
  LockStep step;
  std::string what;  // "created user awaywork", "/opt/toolcache: 0777 -> 0775"
};

struct LockReport {
  std::vector<LockChange> changes;
  std::vector<LockStep> skipped;
  std::vector<std::string> notes;  // what was left for later, and why
  uint64_t walked = 0;             // paths the walk looked at
};

Result<LockReport> host_lock(const LockOptions& o);

// ---- the steps (one file each); each appends what it changed ----

// fs.protected_hardlinks and fs.protected_symlinks on: set when off and /proc/sys is writable
// (and persisted in /etc/sysctl.d/60-awaywork.conf); an Error when they cannot be set.
Status lock_kernel(const std::string& sysctl_dir, std::vector<LockChange>& out);

// The worker as isolation `user` needs it: made with useradd when missing, else reshaped (shell
// nologin, home below /nonexistent and absent, its own group only, password locked, no crontab,
// in cron.deny and at.deny, none of its processes left); an Error when sudo still grants it
// anything (a rule this step cannot safely edit).
Status lock_user(const std::string& worker, const std::string& runner,
                 std::vector<LockChange>& out);

// The runner's home (its checkout, step scripts, RUNNER_TEMP, GITHUB_ENV/GITHUB_PATH files)
// closed to others: mode 700.
Status lock_home(const std::string& runner, std::vector<LockChange>& out);

// One walk of the file system at root, never leaving it (no other mount, symlinks never
// followed): `clear_writable` takes o+w off every path but sticky folders; `clear_acls` removes
// default ACLs granting others write. Returns the paths looked at.
struct WalkSteps {
  bool clear_writable = true;
  bool clear_acls = true;
};
Result<uint64_t> lock_walk(const std::string& root, WalkSteps steps, std::vector<LockChange>& out);

// /etc/sudoers.d/awaywork-WORKER holding exactly the two lines `doctor --print-setup` prints for
// the runner as owner, validated by visudo before it is installed (0440).
Status lock_sudoers(const std::string& worker, const std::string& runner,
                    std::vector<LockChange>& out);

// The runner's other rules in /etc/sudoers.d/ commented out (part of the sudoers step): after the
// lock the runner has no sudo but the two lines, so do what needs root before it.
Status lock_runner_sudo(const std::string& worker, const std::string& runner,
                        std::vector<LockChange>& out);

}  // namespace aw
