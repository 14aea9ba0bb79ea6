// The v2 limit writes (isolate/sandbox/limits.cc) against a real cgroup v2 tree whose kernel
// offers memory, pids and cpu: memory.max, memory.swap.max, pids.max and cpu.max of the phase's
// group say what the plan asked. Precondition, stated rather than passed over: a v2 tree with
// those controllers, and root to make a group in it. On a kernel that binds them to cgroup v1 (a
// hybrid hierarchy, as on the machine this was written on) no v2 tree can offer them: the test
// says so and skips, even under CI=true, since that machine can never have it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"
#include "proc/cgroup_delegate.h"

namespace aw {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

TEST(CgroupV2Limits, ThePhaseGroupGetsThePlansLimits) {
  std::string mount = "/sys/fs/cgroup";
  if (slurp(mount + "/cgroup.controllers").empty()) mount = "/sys/fs/cgroup/unified";
  std::string offered = slurp(mount + "/cgroup.controllers");
  if (!has_word(offered, "memory") || !has_word(offered, "pids")) {
    struct stat st {};
    bool v1 = ::stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &st) == 0;
    std::string why = "precondition not met: the cgroup v2 tree at " + mount + " offers '" +
                      offered + "', not memory and pids" +
                      (v1 ? " (this kernel binds them to cgroup v1: no v2 tree can offer them "
                            "here; a machine booted with cgroup v2 runs this test)"
                          : "");
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true" && !v1) FAIL() << why;
    GTEST_SKIP() << why;
  }
  if (::geteuid() != 0) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "needs root to make a cgroup v2 group";
    GTEST_SKIP() << "needs root to make a cgroup v2 group";
  }
  std::string parent = mount + "/awaywork-v2-limits-test-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(parent.c_str(), 0755), 0);
  enable_controllers(mount);
  enable_controllers(parent);
  std::string leaf = parent + "/phase";
  ASSERT_EQ(::mkdir(leaf.c_str(), 0755), 0);
  SandboxPlan plan;
  plan.limits = Limits{64ull << 20, 37, 0.5};
  ExecRequest req;
  req.cgroup_dir = leaf;
  auto ok = sandbox::apply_cgroup_limits(plan, req, ::getpid());
  EXPECT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(slurp(leaf + "/memory.max"), std::to_string(64ull << 20));
  EXPECT_EQ(slurp(leaf + "/pids.max"), "37");
  if (has_word(offered, "cpu")) {
    EXPECT_EQ(slurp(leaf + "/cpu.max"), "50000 100000");
  }
  struct stat st {};
  if (::stat((leaf + "/memory.swap.max").c_str(), &st) == 0) {
    EXPECT_EQ(slurp(leaf + "/memory.swap.max"), "0");
  }
  ::rmdir(leaf.c_str());
  ::rmdir(parent.c_str());
}

}  // namespace
}  // namespace aw
