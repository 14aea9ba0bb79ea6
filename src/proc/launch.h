// The default launcher: a vfork-style clone, then in the child a new process group, clean signal
// state, the cgroup, the three fds, chdir, and execve of the program resolved against the phase's
// PATH (never a shell). Internal to proc/: the keeper uses it when the PhaseSpec names no launcher.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/argv.h"
#include "base/result.h"
#include "proc/runner.h"

namespace aw {

// Everything the child needs, built by the parent before any fork so that the child only makes
// system calls (it may descend from a multi-threaded process).
struct PreparedExec {
  std::string program;  // absolute or relative path of argv[0], resolved against the env's PATH
  CStrings argv, env;
  std::string extra_procs;  // another cgroup.procs to join (v1 pids), set by the keeper
};

// Resolves argv[0]; the error names the program and the PATH searched.
Result<std::unique_ptr<PreparedExec>> prepare_exec(const PhaseSpec& spec);

// Start the main process as a child of the caller. A failure after the fork (cgroup, chdir, exec)
// comes back through a close-on-exec pipe and is returned as an Error naming the step.
Result<pid_t> launch_default(const PreparedExec& prep, const ExecRequest& req);

}  // namespace aw
