// Shared helpers of the proc tests: phases from /bin/sh scripts, output collection, /proc scans.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/fs.h"
#include "proc/runner.h"
#include "proc/runner_knobs.h"

extern char** environ;

namespace aw::test {

inline bool ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

// A test that needs root skips without it, except under CI=true where that is a failure.
#define AW_REQUIRE_ROOT()                                                  \
  do {                                                                     \
    if (::geteuid() != 0) {                                                \
      if (::aw::test::ci()) FAIL() << "needs root (CI=true: no skipping)"; \
      GTEST_SKIP() << "needs root";                                        \
    }                                                                      \
  } while (0)

inline PhaseSpec sh(const std::string& script, const std::string& name = "test") {
  PhaseSpec s;
  s.name = name;
  s.argv = {"/bin/sh", "-c", script};
  s.env = build_env(environ, {}, {});
  s.timeout = std::chrono::seconds(120);
  s.grace = std::chrono::milliseconds(500);
  return s;
}

struct Run {
  PhaseResult r;
  std::string out, err;
};

inline Run run(PhaseSpec spec, CgroupMode mode = CgroupMode::automatic) {
  Run x;
  spec.on_output = [&](Stream s, std::string_view d) { (s == Stream::out ? x.out : x.err) += d; };
  auto r = run_phase_with(spec, RunnerKnobs{mode});
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  if (r) x.r = *r;
  return x;
}

// A marker no other process on the machine carries: "600.<pid><n>" as sleep's argument.
inline std::string marker() {
  static std::atomic<int> n{0};
  return "600." + std::to_string(::getpid()) + std::to_string(++n);
}

// Pids of live (not zombie) processes whose command line contains `text`.
inline std::vector<pid_t> processes_with(const std::string& text) {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  while (dirent* e = d ? ::readdir(d) : nullptr) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0 || pid == ::getpid()) continue;
    std::string cmd = read_or_empty("/proc/" + std::to_string(pid) + "/cmdline");
    std::string stat = read_or_empty("/proc/" + std::to_string(pid) + "/stat");
    size_t rp = stat.rfind(')');
    bool zombie = rp != std::string::npos && rp + 2 < stat.size() && stat[rp + 2] == 'Z';
    for (char& c : cmd)
      if (c == 0) c = ' ';
    if (!zombie && cmd.find(text) != std::string::npos) out.push_back(pid);
  }
  if (d) ::closedir(d);
  return out;
}

inline pid_t parent_of(pid_t pid) {
  std::string stat = read_or_empty("/proc/" + std::to_string(pid) + "/stat");
  size_t rp = stat.rfind(')');
  return rp == std::string::npos ? 0 : std::atoi(stat.c_str() + rp + 4);
}

inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x == s) return true;
  return false;
}

}  // namespace aw::test
