// The Launcher (proc/runner.h) of isolation `user`: a phase runs as the worker through the first
// sudoers rule. awaywork runs as the owner, never root, so sudo is the one way to become the
// worker; it is used even when the caller is root, so that tests run the path users run.
#pragma once

#include "isolate/user/worker.h"
#include "proc/runner.h"

namespace aw {

// Starts `sudo -n -u WORKER --preserve-env=NAMES -- /usr/bin/env -C CWD -- PROG ARGS...` in a new
// session (no controlling terminal, so sudo's use_pty does not interpose a terminal), where NAMES
// are the names of the request's environment: the values travel in sudo's environment, never on
// its argv. PROG is argv[0] resolved against the request's PATH by the owner (sudo would search
// its secure_path instead). `env -C` enters the clone as the worker: the owner cannot.
Launcher make_worker_launcher(const WorkerUser& worker);

// Isolation user with the OS sandbox: the worker builds the sandbox itself (its own unprivileged
// user namespace; the owner's cannot hold the worker's processes). sudo then runs
// `HELPER __sandbox-exec PLAN_FILE --cwd CWD --env NAMES -- PROG ARGS...`
// (isolate/sandbox/sandbox_exec.h): HELPER is an awaywork the worker can run and not change,
// PLAN_FILE the serialized SandboxPlan (isolate/sandbox/plan_json.h) in a folder of the owner's
// the worker can read.
struct WorkerSandbox {
  std::string helper;
  std::string plan_file;
};

// The argv the launcher runs (for records and tests); sandboxed when sandbox is given.
Result<std::vector<std::string>> worker_argv(const WorkerUser& worker, const ExecRequest& req,
                                             const WorkerSandbox* sandbox = nullptr);

}  // namespace aw
