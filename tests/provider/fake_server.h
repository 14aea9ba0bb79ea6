// Starts one of tests/fakes/*.py (the fake vendor APIs) on a free loopback port for a test.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "proc/capture.h"

namespace aw::test {

class FakeServer {
 public:
  FakeServer() = default;
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;
  ~FakeServer() { stop(); }

  // script: file name under tests/fakes; log: the JSONL request log it writes.
  Status start(const std::string& script, const std::string& log,
               const std::vector<std::string>& extra = {});
  void stop();
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// Runs argv to its end (a test failure when it cannot start); stdin `in`.
Captured run_captured(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                      const std::string& cwd = "", const std::string& in = "");

// The requests a fake logged (its --log file), one JSON object each.
std::vector<nlohmann::json> logged_requests(const std::string& log);

}  // namespace aw::test
