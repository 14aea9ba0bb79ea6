// The process runner: one phase = one process tree started from an argv array with an environment
// built from nothing, in its own process group and (where one can be made) its own cgroup, watched
// by a keeper that kills and reaps everything the phase started and proves that none survived.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace aw {

enum class Stream { out, err };

// What a launcher needs to start a phase's main process. The runner's keeper calls the launcher;
// the launcher must return the pid of a *direct child of the caller*, which becomes the phase's
// main process (its exit ends the phase). The child must dup2 the three fds onto 0/1/2, put itself
// in the cgroup (write its pid to cgroup_procs, when not empty) before exec, and exec argv with
// exactly env. The default launcher forks and execs; the sandbox (isolate/) provides another.
// The keeper calls the launcher with SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGPIPE blocked
// and every disposition at its default: the child must reset its signal mask before exec. argv[0]
// is passed as given (the default launcher resolves it against env's PATH in the parent).
struct ExecRequest {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  std::string cgroup_procs;  // e.g. /sys/fs/cgroup/unified/awaywork/x/cgroup.procs, or ""
  std::string cgroup_dir;    // the phase's cgroup folder (limits are written here), or ""
};
using Launcher = std::function<Result<pid_t>(const ExecRequest&)>;

struct PhaseSpec {
  std::string name;               // "setup", "agent", "check 1": for messages and cgroup names
  std::vector<std::string> argv;  // argv[0] is looked up in the env's PATH; never a shell
  std::vector<std::string> env;   // "KEY=VALUE", the complete environment of the phase
  std::string cwd;
  std::optional<std::string> stdin_data;  // written to stdin then closed; nullopt = /dev/null
  std::chrono::milliseconds timeout{60 * 60 * 1000};
  std::chrono::milliseconds grace{3000};  // between SIGTERM and SIGKILL on timeout or cancel
  // The one hook every byte of output passes through (redaction plugs in here). Called on the
  // calling thread, in order, with chunks of arbitrary size.
  std::function<void(Stream, std::string_view)> on_output;
  // Called on the calling thread once the phase has printed nothing for quiet_after since its
  // last output (once per pause; not before the first output), so that a filter holding back a
  // chunk's tail (the redactor) can write it while the phase is silent. 200 ms: a reader takes a
  // line shown within it for immediate, and a phase printing steadily refills the tail sooner, so
  // the hook runs at most five times a second.
  std::function<void()> on_quiet;
  std::chrono::milliseconds quiet_after{200};
  // Polled about every 100 ms while the phase runs; returning true cancels it (Ctrl-C).
  std::function<bool()> cancelled;
  // Called once with the phase's pid right after it started (progress display, records).
  std::function<void(pid_t)> on_start;
  // How the main process is started; empty = plain fork/exec in a new process group.
  Launcher launcher;
  // Fds the launcher needs inside the keeper. The keeper closes every other fd it inherited (so
  // that a phase's pipes are never held open by the keeper of a phase running concurrently).
  std::vector<int> inherit_fds;
};

enum class PhaseEnd { exited, signaled, timed_out, cancelled, failed_to_start };

struct PhaseResult {
  PhaseEnd end = PhaseEnd::exited;
  int exit_code = -1;  // when exited
  int signal = 0;      // when signaled (or the signal that ended it on timeout)
  std::chrono::milliseconds duration{0};
  int leftovers_killed = 0;                 // processes still alive after the main one ended
  std::vector<std::string> leftover_names;  // their distinct comm names, for the record
  bool verified_empty = false;              // proved that no process of the phase survives
  std::string containment;  // "cgroup v2", "cgroup v1 freezer", "subreaper"; "" when
                            // argv[0] was not found (nothing was started)
  std::string start_error;  // when failed_to_start: exec error text
  // Processes the kernel's OOM killer ended at the phase's own cgroup v2 memory limit (its
  // memory.events oom_kill, read before the group was removed); 0 without a v2 memory group.
  int oom_kills = 0;
};

// How many processes the kernel's OOM killer ended in the cgroup at dir: a v1 memory group's
// memory.oom_control oom_kill line, else a v2 group's memory.events; 0 when neither says (for
// the sandbox's v1 memory groups, which live outside the runner).
int oom_kills_in(const std::string& dir);

// Run a phase to its end. An Error means the runner itself could not do its job (fork failed,
// or leftovers could not be proved dead); a phase that merely fails is a PhaseResult.
Result<PhaseResult> run_phase(const PhaseSpec& spec);

// At startup: kill what the phases of an earlier awaywork that was killed outright (its keepers
// died with it) left in their cgroups, and remove those folders. Returns how many were removed.
int sweep_orphaned_phases();

// Where the phases' cgroups and their limits come from on this machine, for doctor, the record and
// the sandbox's policy: a non-root owner's come from a delegated cgroup v2 group of theirs, or a
// systemd user scope asked for over D-Bus (proc/cgroup_delegate.h). May move this process into
// such a group (as the first phase would).
struct CgroupSources {
  std::string containment;     // "cgroup v2 in a systemd user scope ...", "cgroup v1 freezer"...
  std::string v2_controllers;  // of memory, pids, cpu: what the phases' v2 groups get ("" = none)
  std::string why_no_v2;       // when containment is not v2: why
};
CgroupSources cgroup_sources();

// Ends this process the way a waited-for child ended (its exit code, or the same signal raised
// again), for a process that stands in for its child (the user warden, `__sandbox-exec`).
[[noreturn]] void exit_like(int wait_status);

// "exit 0", "exit 3", "killed by SIGKILL", "timed out after 60 s", ...
std::string describe(const PhaseResult& r);

// The environment of a phase, built from nothing: the allowlisted names that are set in `from`
// (PATH, LANG, LC_ALL, TERM, HOME, TMPDIR, USER, LOGNAME), the names in `extra_names` that are set
// in `from`, then `set` (which wins). `from` is typically environ.
std::vector<std::string> build_env(char** from, const std::vector<std::string>& extra_names,
                                   const std::vector<std::pair<std::string, std::string>>& set);

}  // namespace aw
