// A child process that dies with its parent: how `watch` and `serve` start `awaywork run` for a
// unit (one function, so that both children start from the same clean state).
//
// The child gets SIGTERM when its parent dies (PR_SET_PDEATHSIG; a parent that died before that
// took hold is noticed too), which the run records as interrupted. It runs in a process group of
// its own (a terminal's Ctrl-C reaches the parent only; the parent decides when it is
// interrupted), with no signal blocked and every disposition at its default (a parent's ignored
// SIGPIPE or blocked SIGTERM would otherwise outlive the exec), stdin from /dev/null, stdout and
// stderr to `out_fd`, nothing else open, and the caller's environment.
//
//   AW_TRY(pid_t pid, spawn_tied_child({self_exe(), "--config", f, "run", ...}, log_fd));
//   ... ::waitpid(pid, &st, WNOHANG) ...   // the caller reaps it; 127: it could not start
//
// PR_SET_PDEATHSIG follows the thread that forked, not the process: call it from a thread that
// lives as long as the child should (watch's and serve's main loops do).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

// argv[0] is the program's path (no PATH search). Safe to call in a threaded process: after the
// fork the child makes system calls only. An error only when the child could not be made; a
// program that cannot be executed ends the child with 127.
Result<pid_t> spawn_tied_child(const std::vector<std::string>& argv, int out_fd);

}  // namespace aw
