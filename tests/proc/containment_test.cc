// After every phase nothing it started survives, on each containment path (cgroup v2, cgroup v1
// freezer, subreaper only), and this is verified rather than assumed.
#include <signal.h>
#include <sys/stat.h>

#include "helpers.h"

namespace aw {
namespace {

using test::contains;
using test::processes_with;
using test::run;
using test::sh;

// Shell text that waits until `sleep <mark>` has been exec'd (so that its name is "sleep").
std::string until_sleeping(const std::string& mark) {
  return "until pgrep -f '^sleep " + mark + "$' >/dev/null; do sleep 0.01; done; ";
}

struct Path {
  CgroupMode mode;
  const char* containment;
  const char* cgroup_line;  // what /proc/self/cgroup of the phase shows, "" for none
};

class ProcContainment : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (GetParam().mode != CgroupMode::none) AW_REQUIRE_ROOT();
  }
  test::Run go(const std::string& script) { return run(sh(script, "contain"), GetParam().mode); }
  // The phase's leftovers were found, named, killed, and nothing with the marker lives.
  void expect_contained(const test::Run& a, const std::string& mark, int at_least) {
    EXPECT_EQ(a.r.containment, GetParam().containment);
    EXPECT_GE(a.r.leftovers_killed, at_least);
    EXPECT_TRUE(contains(a.r.leftover_names, "sleep"))
        << ::testing::PrintToString(a.r.leftover_names);
    EXPECT_TRUE(a.r.verified_empty);
    EXPECT_EQ(processes_with(mark).size(), 0u) << "a process with " << mark << " survived";
  }
};

TEST_P(ProcContainment, PhaseRunsInsideItsCgroup) {
  auto a = go("cat /proc/self/cgroup");
  EXPECT_EQ(a.r.containment, GetParam().containment);
  std::string line = GetParam().cgroup_line;
  if (line.empty()) {
    EXPECT_EQ(a.out.find("/awaywork/"), std::string::npos) << a.out;
  } else {
    EXPECT_NE(a.out.find(line + "/awaywork/contain-" + std::to_string(::getpid()) + "-"),
              std::string::npos)
        << a.out;
  }
}

TEST_P(ProcContainment, SetsidSleepLeftBehindIsKilled) {
  std::string m = test::marker();
  auto a = go("setsid sleep " + m + " & " + until_sleeping(m) + "exit 0");
  EXPECT_EQ(a.r.end, PhaseEnd::exited);
  expect_contained(a, m, 1);
}

TEST_P(ProcContainment, DoubleForkedDaemonIsKilled) {
  std::string m = test::marker();
  auto a = go("( sleep " + m + " & ) ; " + until_sleeping(m) + "exit 0");
  expect_contained(a, m, 1);
}

TEST_P(ProcContainment, DaemonThatClosedItsOutputIsKilled) {
  std::string m = test::marker();
  auto a =
      go("setsid sh -c 'sleep " + m + " & exit 0' </dev/null >/dev/null 2>&1 & exec >&- 2>&-; " +
         until_sleeping(m) + "exit 0");
  expect_contained(a, m, 1);
}

TEST_P(ProcContainment, TwoHundredBackgroundChildrenAreAllKilled) {
  std::string m = test::marker();
  auto a = go("i=0; while [ $i -lt 200 ]; do sleep " + m + " & i=$((i+1)); done; " +
              until_sleeping(m) + "exit 0");
  expect_contained(a, m, 200);
}

TEST_P(ProcContainment, LeftoversOfAKilledMainProcessAreKilled) {
  std::string m = test::marker();
  auto a = go("sleep " + m + " & " + until_sleeping(m) + "kill -KILL $$");
  EXPECT_EQ(a.r.end, PhaseEnd::signaled);
  expect_contained(a, m, 1);
}

TEST_P(ProcContainment, AProcessThatKeepsForkingIsStillEnded) {
  std::string m = test::marker();
  auto a = go("(while :; do sleep " + m + " & done) & sleep 0.2; exit 0");
  EXPECT_EQ(a.r.end, PhaseEnd::exited);
  expect_contained(a, m, 1);
}

TEST_P(ProcContainment, TimedOutPhaseLeavesNothing) {
  std::string m = test::marker();
  PhaseSpec s = sh("trap '' TERM; setsid sleep " + m + " & sleep " + m, "contain");
  s.timeout = std::chrono::milliseconds(200);
  s.grace = std::chrono::milliseconds(100);
  auto a = run(s, GetParam().mode);
  EXPECT_EQ(a.r.end, PhaseEnd::timed_out);
  EXPECT_TRUE(a.r.verified_empty);
  EXPECT_EQ(processes_with(m).size(), 0u);
}

TEST_P(ProcContainment, CgroupFolderIsRemovedAfterwards) {
  auto a = go("true");
  std::string prefix = "contain-" + std::to_string(::getpid()) + "-";
  for (const char* root : {"/sys/fs/cgroup/unified/awaywork", "/sys/fs/cgroup/awaywork",
                           "/sys/fs/cgroup/freezer/awaywork", "/sys/fs/cgroup/pids/awaywork"}) {
    DIR* d = ::opendir(root);
    while (dirent* e = d ? ::readdir(d) : nullptr)
      EXPECT_NE(std::string(e->d_name).rfind(prefix, 0), 0u) << root << "/" << e->d_name;
    if (d) ::closedir(d);
  }
}

// Someone kills the keeper: run_phase says so, and the phase's cgroup is still emptied.
TEST(ProcKeeper, KilledKeeperIsAnErrorAndThePhaseCgroupIsStillEmptied) {
  AW_REQUIRE_ROOT();
  std::string m = test::marker();
  PhaseSpec s = sh("setsid sleep " + m + " & " + until_sleeping(m) + "echo ready; sleep " + m);
  pid_t main = 0;
  s.on_start = [&](pid_t p) { main = p; };
  bool ready = false, killed = false;
  s.on_output = [&](Stream, std::string_view d) {
    ready = ready || d.find("ready") != std::string_view::npos;
  };
  // Polled on the calling thread; on_start may come after the first output.
  s.cancelled = [&] {
    pid_t keeper = main > 0 ? test::parent_of(main) : 0;
    if (ready && !killed && keeper > 1 && keeper != ::getpid())
      killed = ::kill(keeper, SIGKILL) == 0;
    return false;
  };
  auto r = run_phase(s);
  ASSERT_TRUE(killed);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("keeper ended without a report"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("cgroup was emptied"), std::string::npos) << r.error().message;
  EXPECT_TRUE(processes_with(m).empty());
}

INSTANTIATE_TEST_SUITE_P(Paths, ProcContainment,
                         ::testing::Values(Path{CgroupMode::automatic, "cgroup v2", "0::"},
                                           Path{CgroupMode::v1_only, "cgroup v1 freezer",
                                                "freezer:"},
                                           Path{CgroupMode::none, "subreaper", ""}),
                         [](const auto& info) {
                           switch (info.param.mode) {
                             case CgroupMode::automatic:
                               return std::string("CgroupV2");
                             case CgroupMode::v1_only:
                               return std::string("CgroupV1Freezer");
                             default:
                               return std::string("SubreaperOnly");
                           }
                         });

}  // namespace
}  // namespace aw
