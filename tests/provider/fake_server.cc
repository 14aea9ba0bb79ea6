#include "fake_server.h"

#include <fstream>

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace aw::test {

Status FakeServer::start(const std::string& script, const std::string& log,
                         const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"/usr/bin/python3",
                                   std::string(AW_SOURCE_DIR) + "/tests/fakes/" + script,
                                   "--port",
                                   "0",
                                   "--log",
                                   log};
  args.insert(args.end(), extra.begin(), extra.end());
  int fds[2];
  if (::pipe(fds) != 0) return fail("pipe failed");
  pid_ = ::fork();
  if (pid_ < 0) return fail("fork failed");
  if (pid_ == 0) {
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
  // The fake prints its port as its first line; a guard, not a timing assertion.
  std::string line;
  char c;
  pollfd p{fds[0], POLLIN, 0};
  while (line.find('\n') == std::string::npos && ::poll(&p, 1, 30000) > 0 &&
         ::read(fds[0], &c, 1) == 1)
    line += c;
  ::close(fds[0]);
  port_ = std::atoi(line.c_str());
  if (port_ <= 0) {
    stop();
    return fail("{} did not print its port (got '{}')", script, line);
  }
  return {};
}

void FakeServer::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

Captured run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const std::string& cwd, const std::string& in) {
  CaptureSpec cs;
  cs.argv = argv;
  cs.env = env;
  cs.cwd = cwd;
  cs.stdin_data = in;
  auto r = capture(cs);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : Captured{};
}

std::vector<nlohmann::json> logged_requests(const std::string& log) {
  std::vector<nlohmann::json> out;
  std::ifstream f(log);
  for (std::string line; std::getline(f, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace aw::test
