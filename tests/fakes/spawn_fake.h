// Starts one of tests/fakes/*.py for a test and reads the first line it prints when ready (a
// port, or fake_github.py's JSON line). Test code only; header-only (POSIX).
//
//   pid_t pid;
//   std::string line = aw::test::spawn_fake({"/usr/bin/python3", script, "--port", "0"}, &pid);
//   ... ::kill(pid, SIGTERM); ::waitpid(pid, nullptr, 0);
#pragma once

#include <poll.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace aw::test {

// argv[0] is an absolute path. *pid is -1 when fork failed; "" when the child printed no line
// within 30 s (a guard, not a timing assertion).
inline std::string spawn_fake(std::vector<std::string> args, pid_t* pid) {
  int fds[2];
  *pid = -1;
  if (::pipe(fds) != 0) return "";
  *pid = ::fork();
  if (*pid < 0) return "";
  if (*pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string line;
  char c;
  pollfd p{fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && ::poll(&p, 1, 30000) > 0 &&
         ::read(fds[0], &c, 1) == 1)
    line += c;
  ::close(fds[0]);
  return line;
}

}  // namespace aw::test
