// The watchdog's floors and the transcript's cap: a unit below the disk or memory floor does not
// start, a phase that takes the disk below the floor is stopped and the unit recorded failed, and
// an agent printing without end leaves a transcript cut at max_transcript_bytes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class Watchdog : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
  }
  nlohmann::json run(const std::string& extra, const std::string& agent_body) {
    write_config(agent_script("agent", agent_body), "", "sandbox: {mode: off}\n" + extra);
    auto r = run_unit("do it");
    EXPECT_FALSE(r.record.is_null()) << r.out << r.err;
    return r.record;
  }
};

TEST_F(Watchdog, ADiskBelowTheFloorStartsNoPhase) {
  auto u = run("limits: {disk_floor: 1000T}\n", "echo ran > a.txt\n");
  EXPECT_EQ(u.value("state", ""), "failed");
  EXPECT_NE(u.value("reason", "").find("not started: disk below floor"), std::string::npos)
      << u.dump(2);
  EXPECT_NE(u.value("reason", "").find("limits.disk_floor"), std::string::npos);
  EXPECT_TRUE(u["phases"].empty()) << u.dump(2);
}

TEST_F(Watchdog, MemoryBelowTheFloorStartsNoPhase) {
  std::ifstream f("/proc/meminfo");
  std::stringstream ss;
  ss << f.rdbuf();
  unsigned long long total = 0, avail = 0;
  std::string text = ss.str();
  std::sscanf(text.c_str() + text.find("MemTotal:"), "MemTotal: %llu", &total);
  std::sscanf(text.c_str() + text.find("MemAvailable:"), "MemAvailable: %llu", &avail);
  ASSERT_GT(total, 0u);
  ASSERT_LT(static_cast<double>(avail) / static_cast<double>(total), 0.99) << text;
  auto u = run("limits: {memory_floor: 99%}\n", "echo ran > a.txt\n");
  EXPECT_EQ(u.value("state", ""), "failed");
  EXPECT_NE(u.value("reason", "").find("memory below floor"), std::string::npos) << u.dump(2);
  EXPECT_TRUE(u["phases"].empty());
}

TEST_F(Watchdog, APhaseFillingTheDiskIsStoppedAndTheUnitFailed) {
  if (!small_state_fs(96)) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "needs root to mount a tmpfs state folder";
    GTEST_SKIP() << "needs root to mount a tmpfs state folder";
  }
  // 64 MiB written into the clone leaves less than the 40 MiB floor; then the agent would wait
  // a minute: the watchdog must end it long before.
  auto started = std::chrono::steady_clock::now();
  auto u = run("limits: {disk_floor: 40M}\n",
               "dd if=/dev/zero of=big bs=1M count=64 2>/dev/null\nsleep 60\n");
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(u.value("state", ""), "failed") << u.dump(2);
  EXPECT_NE(u.value("reason", "").find("agent phase stopped by the watchdog: disk below floor"),
            std::string::npos)
      << u.dump(2);
  EXPECT_LT(took, std::chrono::seconds(50));
  ASSERT_EQ(u["phases"].size(), 1u);
  EXPECT_EQ(u["phases"][0].value("end", ""), "cancelled");
  EXPECT_EQ(u.value("branch", ""), "");  // nothing published
}

TEST_F(Watchdog, AnAgentPrintingWithoutEndLeavesACutTranscriptAndTheUnitGoesOn) {
  auto u = run("max_transcript_bytes: 64K\n",
               "head -c 10000000 /dev/zero | tr '\\0' x\necho\necho edited > a.txt\n");
  EXPECT_EQ(u.value("state", ""), "done") << u.dump(2);
  std::string log = read(u.value("run_dir", "") + "/transcript.log");
  EXPECT_LT(log.size(), 64u * 1024 + 1024);
  EXPECT_NE(log.find("reached max_transcript_bytes (65536 bytes) and was cut here"),
            std::string::npos);
  EXPECT_NE(log.find("more bytes were left out"), std::string::npos);
  bool noted = false;
  for (const auto& n : u["notes"])
    noted |= n.get<std::string>().find("max_transcript_bytes") != std::string::npos;
  EXPECT_TRUE(noted) << u.dump(2);
  EXPECT_NE(read(u.value("run_dir", "") + "/patch.diff").find("+edited"), std::string::npos);
}

TEST_F(Watchdog, BadFloorsAreNamedAtTheirLine) {
  write_config(agent_script("agent", "true\n"), "",
               "limits: {disk_floor: lots, memory_floor: 5}\nmax_transcript_bytes: 10\n");
  auto r = awaywork({"units"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("limits.disk_floor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("limits.memory_floor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not a percentage"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("max_transcript_bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("below the 4K minimum"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aw::test
