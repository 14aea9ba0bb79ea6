#include "fake_server.h"

#include <fstream>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "../fakes/spawn_fake.h"

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
  // The fake prints its port as its first line.
  std::string line = spawn_fake(args, &pid_);
  if (pid_ < 0) return fail("fork failed");
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
