// What the sandbox tests share: a clone and a home in a fresh folder, a plan that makes them
// writable with limits (applied when root), and a phase run through the launcher as the runner's
// keeper would run it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "base/fs.h"
#include "harness.h"
#include "isolate/sandbox/sandbox.h"

// Limits (and a unit's network namespace) need root: a skip without it, a failure under CI=true.
#define NEED_ROOT()                                                        \
  do {                                                                     \
    if (::geteuid() != 0) AW_SKIP_OR_FAIL("needs root for cgroup limits"); \
  } while (0)

namespace aw::test {

struct SandboxFixture : ::testing::Test {
  TempDir dir;
  std::string clone = dir.path + "/clone", home = dir.path + "/home";
  SandboxPlan plan;
  void SetUp() override {
    ASSERT_TRUE(make_dirs(clone));
    ASSERT_TRUE(make_dirs(home));
    plan.writable = {clone, home};
    plan.limits = Limits{256ull << 20, 128, 1.0};
    plan.apply_limits = ::geteuid() == 0;
  }
  Ran sh(const std::string& script) {
    return run_with(make_sandbox_launcher(plan), {"/bin/sh", "-c", script}, clone);
  }
};

}  // namespace aw::test
