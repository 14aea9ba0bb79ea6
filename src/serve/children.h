// The units this server started: each is `awaywork run ... --json`, a child process that dies
// with the server (spawn_tied_child, proc/tied_child.h: PR_SET_PDEATHSIG; and SIGTERM from
// terminate_all on a clean exit), which the run records as interrupted. Its own limits
// (unit_minutes) apply as for any run.
//   auto pid = children.spawn(argv);   // argv[0] absolute
//   children.reap();                   // on SIGCHLD
//   children.terminate_all(10000);     // on exit: SIGTERM, wait, SIGKILL; no spawn after it
#pragma once

#include <sys/types.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

class Children {
 public:
  explicit Children(std::string scratch_dir) : scratch_(std::move(scratch_dir)) {}
  // Starts argv with the server's environment; stdout and stderr go to a file under scratch.
  // Refused once terminate_all has begun: a unit started then would outlive the server.
  Result<pid_t> spawn(const std::vector<std::string>& argv);
  // Reaps the children that ended; safe to call at any time.
  void reap();
  // The exit status (wait(2) form) once the child ended and was reaped; nullopt while it runs.
  std::optional<int> status(pid_t pid);
  // What the child printed (its error when it ended before making a unit); capped.
  std::string output(pid_t pid);
  // Its output is no longer wanted (it made its unit): the file goes now, the entry once reaped.
  void release(pid_t pid);
  // SIGTERM to every running child (released ones too), up to `grace_ms` for them to record
  // themselves, then SIGKILL to each one left and its process group; returns once every one has
  // ended and been reaped. A killed run has no record of its end: the caller then marks it
  // (recover_abandoned).
  void terminate_all(int grace_ms);
  // No more grace (a second SIGINT/SIGTERM): terminate_all kills the ones left now.
  void hurry() { hurry_ = true; }

 private:
  struct Child {
    std::string out_path;
    std::optional<int> status;
    bool released = false;
  };
  std::string scratch_;
  std::mutex mu_;
  std::map<pid_t, Child> kids_;
  bool stopping_ = false;  // under mu_: terminate_all has begun
  std::atomic<bool> hurry_{false};
};

}  // namespace aw
