// The keeper: the process run_phase forks to own one phase. It becomes a child subreaper, makes
// the phase's cgroup, starts the main process through the launcher, waits for it (timeout, cancel),
// then kills and reaps everything the phase started and proves that nothing survived. It reports
// through a pipe with fixed-size records. Internal to proc/.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "proc/cgroup.h"
#include "proc/launch.h"
#include "proc/runner.h"

namespace aw {

// One record through the report pipe: first `started` (or nothing, when the launch failed), then
// `final`. Smaller than PIPE_BUF, so each write is atomic.
struct KeeperReport {
  enum Kind : int32_t { started = 1, final = 2 };
  int32_t kind = 0;
  int32_t pid = 0;  // started: the main process
  int32_t end = 0;  // PhaseEnd
  int32_t exit_code = -1;
  int32_t signal = 0;
  int32_t leftovers = 0;
  int32_t verified_empty = 0;
  int32_t containment = 0;    // CgroupKind
  int32_t runner_failed = 0;  // the tree could not be proved dead: run_phase returns an Error
  int32_t oom_kills = 0;      // v2: memory.events oom_kill of the phase's group, read before rmdir
  int64_t duration_ms = 0;
  char start_error[512] = {};
  char failure[512] = {};
  char names[1024] = {};  // distinct comm names of the leftovers, '\n'-separated
};
static_assert(sizeof(KeeperReport) < 4096, "a report must fit one atomic pipe write");

// Everything the keeper needs, prepared by the parent before the fork.
struct KeeperPlan {
  const PhaseSpec* spec = nullptr;
  ExecRequest req;               // the keeper fills in cgroup_procs and cgroup_dir
  PreparedExec* prep = nullptr;  // the default launcher's data; null when spec->launcher is set
  CgroupRoots roots;
  std::string leaf_prefix;    // "<phase>-<awaywork pid>-": the keeper appends its own pid
  int control_fd = -1;        // read: a byte (or EOF) means cancel
  int report_fd = -1;         // write: KeeperReport records
  std::vector<int> keep_fds;  // every other inherited fd is closed in the keeper
  pid_t parent = 0;
};

// Never returns. Uses system calls plus the allocator for a few strings and vectors (safe after a
// fork from a threaded process with glibc, whose fork resets the allocator's locks in the child);
// no stdio, no locale, no logging, no locks.
[[noreturn]] void keeper_main(KeeperPlan& plan);

}  // namespace aw
