// The v2 limit writes (isolate/sandbox/limits.cc) against a real cgroup v2 tree whose kernel
// offers memory, pids and cpu: memory.max, memory.swap.max, pids.max and cpu.max of a phase's
// group say what the plan asked, and they hold: a fork bomb stops at pids.max, an allocation past
// memory.max is OOM-killed, a spinning process gets cpu.max's share.
//
// Precondition, stated rather than passed over: a v2 tree with those controllers, and root to make
// groups in it. ctest runs this binary through scripts/cgroup-v2-test: in place where this machine
// has such a tree, else in a KVM guest booted with cgroup_no_v1=all (scripts/cgroup-v2-vm), so a
// kernel that binds the controllers to cgroup v1 still runs it. Run directly without the
// precondition, it skips saying why; under CI=true that is a failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"
#include "proc/cgroup_delegate.h"

namespace aw {
namespace {

std::string slurp(const std::string& path) {
  std::string s = read_or_empty(path);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// The number after `key ` in a flat-keyed cgroup file (memory.events, pids.events, cpu.stat).
long long keyed(const std::string& path, const std::string& key) {
  std::istringstream in(slurp(path));
  std::string k;
  long long v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return -1;
}

bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

// The v2 mount whose root offers memory and pids (and cpu when need_cpu), or "" with why.
std::string v2_mount(bool need_cpu, std::string* why) {
  std::string mount = "/sys/fs/cgroup";
  if (slurp(mount + "/cgroup.controllers").empty()) mount = "/sys/fs/cgroup/unified";
  std::string offered = slurp(mount + "/cgroup.controllers");
  if (!has_word(offered, "memory") || !has_word(offered, "pids") ||
      (need_cpu && !has_word(offered, "cpu"))) {
    struct stat st {};
    bool v1 = ::stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &st) == 0;
    *why = "precondition not met: the cgroup v2 tree at " + mount + " offers '" + offered +
           "', not memory, pids" + (need_cpu ? " and cpu" : "") +
           (v1 ? " (this kernel binds them to cgroup v1; ctest runs this binary in a KVM guest "
                 "through scripts/cgroup-v2-test)"
               : "");
    return "";
  }
  if (::geteuid() != 0) {
    *why = "precondition not met: making cgroup v2 groups at " + mount + " needs root";
    return "";
  }
  return mount;
}

#define AW_NEED_V2(var, need_cpu)                     \
  std::string aw_why_;                                \
  std::string var = v2_mount(need_cpu, &aw_why_);     \
  if (var.empty()) {                                  \
    if (under_ci()) FAIL() << "CI=true: " << aw_why_; \
    GTEST_SKIP() << aw_why_;                          \
  }

// A parent group with the controllers handed down and one leaf in it, as the keeper makes a
// phase's; removed when the test ends (after its processes).
struct Group {
  std::string parent, leaf;
  explicit Group(const std::string& mount, const std::string& name) {
    parent = mount + "/awaywork-v2-limits-test-" + std::to_string(::getpid()) + "-" + name;
    leaf = parent + "/phase";
    if (::mkdir(parent.c_str(), 0755) != 0) return;
    enable_controllers(mount);
    enable_controllers(parent);
    ::mkdir(leaf.c_str(), 0755);
  }
  ~Group() {
    ::rmdir(leaf.c_str());
    ::rmdir(parent.c_str());
  }
  // The product's writes, as the sandbox launcher makes them for its child.
  Status apply(const Limits& limits) const {
    SandboxPlan plan;
    plan.limits = limits;
    ExecRequest req;
    req.cgroup_dir = leaf;
    return sandbox::apply_cgroup_limits(plan, req, ::getpid());
  }
  bool join() const {
    std::ofstream procs(leaf + "/cgroup.procs");
    procs << "0";
    procs.flush();
    return static_cast<bool>(procs);
  }
};

TEST(CgroupV2Limits, ThePhaseGroupGetsThePlansLimits) {
  AW_NEED_V2(mount, false);
  Group g(mount, "files");
  std::string offered = slurp(mount + "/cgroup.controllers");
  auto ok = g.apply(Limits{64ull << 20, 37, 0.5});
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(slurp(g.leaf + "/memory.max"), std::to_string(64ull << 20));
  EXPECT_EQ(slurp(g.leaf + "/pids.max"), "37");
  if (has_word(offered, "cpu")) {
    EXPECT_EQ(slurp(g.leaf + "/cpu.max"), "50000 100000");
  }
  struct stat st {};
  if (::stat((g.leaf + "/memory.swap.max").c_str(), &st) == 0) {
    EXPECT_EQ(slurp(g.leaf + "/memory.swap.max"), "0");
  }
}

// A child in the leaf forks sleepers until fork fails; it reports how many it got and the errno.
// pids.max counts the child itself, so at most max - 1 sleepers.
TEST(CgroupV2Limits, AForkBombStopsAtPidsMax) {
  AW_NEED_V2(mount, false);
  Group g(mount, "pids");
  const int max = 24;
  auto ok = g.apply(Limits{256ull << 20, max, 1.0});
  ASSERT_TRUE(ok) << ok.error().message;
  int report[2], hold[2], go[2];
  ASSERT_EQ(::pipe(report), 0);
  ASSERT_EQ(::pipe(hold), 0);
  ASSERT_EQ(::pipe(go), 0);
  pid_t bomb = ::fork();
  ASSERT_GE(bomb, 0);
  if (bomb == 0) {
    ::close(report[0]);
    ::close(go[1]);  // else the read on go below never ends
    if (!g.join()) ::_exit(3);
    int got[2] = {0, 0};
    for (int i = 0; i < 10 * max; ++i) {
      pid_t s = ::fork();
      if (s == 0) {  // a sleeper: until the bomb closes hold
        ::close(hold[1]);
        char c;
        (void)!::read(hold[0], &c, 1);
        ::_exit(0);
      }
      if (s < 0) {
        got[1] = errno;
        break;
      }
      ++got[0];
    }
    (void)!::write(report[1], got, sizeof got);
    char c;
    (void)!::read(go[0], &c, 1);  // the parent has read the group's counters
    ::close(hold[1]);
    while (::wait(nullptr) > 0) {
    }
    ::_exit(0);
  }
  ::close(report[1]);
  ::close(hold[1]);
  ::close(go[0]);
  int got[2] = {-1, 0};
  ASSERT_EQ(::read(report[0], got, sizeof got), static_cast<ssize_t>(sizeof got));
  EXPECT_EQ(got[0], max - 1) << "sleepers forked before fork failed";
  EXPECT_EQ(got[1], EAGAIN) << std::strerror(got[1]);
  EXPECT_EQ(slurp(g.leaf + "/pids.current"), std::to_string(max));
  EXPECT_GE(keyed(g.leaf + "/pids.events", "max"), 1) << slurp(g.leaf + "/pids.events");
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(bomb, &status, 0), bomb);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ::close(report[0]);
  ::close(hold[0]);
}

// A child in the leaf touches four times memory.max: the kernel's OOM killer ends it (SIGKILL),
// counted in the group's memory.events. memory.swap.max 0 (written by the product where the file
// exists) keeps it from being swapped out instead.
TEST(CgroupV2Limits, AnAllocationPastMemoryMaxIsOomKilled) {
  AW_NEED_V2(mount, false);
  Group g(mount, "memory");
  const size_t max = 32u << 20;
  auto ok = g.apply(Limits{max, 64, 1.0});
  ASSERT_TRUE(ok) << ok.error().message;
  pid_t hog = ::fork();
  ASSERT_GE(hog, 0);
  if (hog == 0) {
    if (!g.join()) ::_exit(3);
    const size_t want = 4 * max;
    char* p = static_cast<char*>(std::malloc(want));
    if (!p) ::_exit(4);
    for (size_t at = 0; at < want; at += 4096) p[at] = 1;  // every page, for real
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(hog, &status, 0), hog);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the hog was not killed: status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_GE(keyed(g.leaf + "/memory.events", "oom_kill"), 1) << slurp(g.leaf + "/memory.events");
}

double now_s(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// A child in the leaf spins for a second of wall time under cpus 0.25: the group's cpu.stat shows
// about a quarter second of CPU (one 100 ms period of slack), where unlimited it would be ~1 s.
TEST(CgroupV2Limits, ASpinningProcessIsHeldToCpuMax) {
  AW_NEED_V2(mount, true);
  Group g(mount, "cpu");
  auto ok = g.apply(Limits{64ull << 20, 16, 0.25});
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(slurp(g.leaf + "/cpu.max"), "25000 100000");
  const double start = now_s(CLOCK_MONOTONIC);
  pid_t spin = ::fork();
  ASSERT_GE(spin, 0);
  if (spin == 0) {
    if (!g.join()) ::_exit(3);
    double t0 = now_s(CLOCK_MONOTONIC);
    while (now_s(CLOCK_MONOTONIC) - t0 < 1.0) {
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(spin, &status, 0), spin);
  const double wall = now_s(CLOCK_MONOTONIC) - start;
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  double used = static_cast<double>(keyed(g.leaf + "/cpu.stat", "usage_usec")) / 1e6;
  EXPECT_LE(used, 0.25 * wall + 0.1) << "CPU seconds in " << wall << " s of wall time";
  EXPECT_GE(used, 0.05) << "the spinner ran";
  EXPECT_GE(keyed(g.leaf + "/cpu.stat", "nr_throttled"), 1) << slurp(g.leaf + "/cpu.stat");
}

}  // namespace
}  // namespace aw
