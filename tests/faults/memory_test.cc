// An agent that eats memory: past sandbox.limits.memory the kernel's OOM killer ends it, and the
// unit is recorded `failed` with "out of memory" read from the cgroup's own count (v1
// memory.oom_control oom_kill here; v2 memory.events oom_kill where the phase's group has the
// memory controller), not guessed from the SIGKILL; a SIGKILL of the agent's own is not called
// out of memory. And the watchdog's host memory floor stops a unit that is already running.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "unit_fixture.h"

namespace aw::test {
namespace {

bool ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

class Memory : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
  }
  nlohmann::json run(const std::string& extra, const std::string& agent_body) {
    write_config(agent_script("agent", agent_body), "", extra);
    auto r = run_unit("eat");
    EXPECT_FALSE(r.record.is_null()) << r.out << r.err;
    return r.record;
  }
};

// `tail` keeps a line without a newline whole: 512 MiB of zeros is 512 MiB in its memory.
constexpr const char* kEat = "head -c 512M /dev/zero | tail > /dev/null\necho after > a.txt\n";

TEST_F(Memory, AnAgentPastItsMemoryLimitFailsOutOfMemoryFromTheCgroupsCount) {
  if (::geteuid() != 0) {
    if (ci()) FAIL() << "needs root (the sandbox's cgroup memory limit)";
    GTEST_SKIP() << "needs root (the sandbox's cgroup memory limit)";
  }
  auto u =
      run("sandbox: {mode: required, limits: {memory: 64M}}\n", std::string("set -e\n") + kEat);
  EXPECT_EQ(u.value("state", ""), "failed") << u.dump(2);
  std::string reason = u.value("reason", "");
  EXPECT_NE(reason.find("agent phase failed: out of memory: the kernel's OOM killer ended"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("sandbox.limits.memory"), std::string::npos) << reason;
  EXPECT_EQ(u.value("branch", ""), "");
}

TEST_F(Memory, AnAgentKilledBySigkillOfItsOwnIsNotCalledOutOfMemory) {
  if (::geteuid() != 0) {
    if (ci()) FAIL() << "needs root (the sandbox's cgroup memory limit)";
    GTEST_SKIP() << "needs root (the sandbox's cgroup memory limit)";
  }
  auto u = run("sandbox: {mode: required, limits: {memory: 64M}}\n", "kill -KILL $$\n");
  EXPECT_EQ(u.value("state", ""), "failed") << u.dump(2);
  std::string reason = u.value("reason", "");
  // The sandbox's init passes the signal on as 128 + 9.
  EXPECT_TRUE(reason.find("SIGKILL") != std::string::npos ||
              reason.find("exit 137") != std::string::npos)
      << reason;
  EXPECT_EQ(reason.find("out of memory"), std::string::npos) << reason;
}

// MemAvailable / MemTotal, in percent.
double available_percent() {
  std::ifstream f("/proc/meminfo");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  unsigned long long total = 0, avail = 0;
  std::sscanf(text.c_str() + text.find("MemTotal:"), "MemTotal: %llu", &total);
  std::sscanf(text.c_str() + text.find("MemAvailable:"), "MemAvailable: %llu", &avail);
  return total ? 100.0 * static_cast<double>(avail) / static_cast<double>(total) : 0;
}

TEST_F(Memory, TheHostMemoryFloorStopsARunningUnit) {
  // The floor sits 2% of the host below what is available now: the unit starts, and an agent
  // holding 3x that much takes the host below it.
  double avail = available_percent();
  ASSERT_GT(avail, 10.0);
  std::ifstream f("/proc/meminfo");
  unsigned long long total_kib = 0;
  std::string word;
  f >> word >> total_kib;
  unsigned long long hold_mib = total_kib * 6 / 100 / 1024;
  std::string floor = fmt::format("{:.1f}%", avail - 2.0);
  auto started = std::chrono::steady_clock::now();
  auto u =
      run("sandbox: {mode: off}\nlimits: {memory_floor: " + floor + "}\n",
          fmt::format("{{ head -c {}M /dev/zero; sleep 60; }} | tail > /dev/null\n", hold_mib));
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(u.value("state", ""), "failed") << u.dump(2);
  EXPECT_NE(u.value("reason", "").find("agent phase stopped by the watchdog: memory below floor"),
            std::string::npos)
      << u.dump(2);
  ASSERT_EQ(u["phases"].size(), 1u) << u.dump(2);  // it had started
  EXPECT_EQ(u["phases"][0].value("end", ""), "cancelled");
  EXPECT_LT(took, std::chrono::seconds(45));
  EXPECT_EQ(u.value("branch", ""), "");
}

}  // namespace
}  // namespace aw::test
