// `awaywork __sandbox-exec PLAN_FILE --cwd DIR --env NAMES -- PROG ARGS...` (hidden): the OS
// sandbox over a phase of isolation user. sudo runs it as the worker (isolate/user/
// worker_launcher.h WorkerSandbox): it reads the plan the owner's awaywork wrote, builds the
// sandbox with the in-process launcher (sandbox.h) in the worker's own user namespace, forwards
// the end signals to it and exits with its status. The sandbox's own hidden helper: cli/main.cc's
// table of helpers dispatches to it before any option parsing, so PROG's arguments are passed on
// exactly.
#pragma once

#include <optional>

namespace aw {

// The exit code when argv[1] is __sandbox-exec, nullopt otherwise.
std::optional<int> sandbox_exec_main(int argc, char** argv);

}  // namespace aw
