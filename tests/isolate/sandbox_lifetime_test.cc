// How long a phase lives: a leftover process dies with the phase only because of the pid
// namespace, and the phase dies with the process that launched it only because of
// die-with-parent; each shown with its protection turned off as the positive control.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe_world.h"

namespace aw::test {
namespace {

TEST(IsolateSandbox, LeftoverProcessesDieOnlyBecauseOfThePidNamespace) {
  // With the pid namespace a background process dies with the phase; without it, it survives:
  // the check the runner relies on is the namespace, not luck.
  TempDir d;
  std::string clone = d.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  for (bool pidns : {true, false}) {
    SandboxPlan plan;
    plan.writable = {clone};
    plan.apply_limits = false;
    if (!pidns) plan.disable_for_test = {"pidns"};
    std::string marker = fmt::format("aw-leftover-{}-{}", ::getpid(), pidns);
    auto r = test::run_with(
        make_sandbox_launcher(plan),
        {"/bin/sh", "-c", "sh -c 'sleep 1000' " + marker + " </dev/null >/dev/null 2>&1 & echo ok"},
        clone);
    ASSERT_TRUE(r.started) << r.start_error;
    // With the namespace, init's exit has already killed and reaped everything in it; without,
    // the sleeper may still be exec'ing: give it up to a second to show up.
    std::vector<pid_t> found = pids_with(marker);
    for (int i = 0; i < 50 && found.empty() && !pidns; ++i) {
      ::usleep(20000);
      found = pids_with(marker);
    }
    EXPECT_EQ(found.empty(), pidns);
    for (pid_t p : found) ::kill(p, SIGKILL);
  }
}

TEST(IsolateSandbox, ThePhaseDiesWithTheProcessThatLaunchedIt) {
  // die-with-parent: if the runner's keeper is killed, the namespace goes with it (and, as the
  // positive control, without the protection the phase survives the keeper).
  for (bool protect : {true, false}) {
    TempDir d;
    std::string clone = d.path + "/clone";
    ASSERT_TRUE(make_dirs(clone));
    SandboxPlan plan;
    plan.writable = {clone};
    plan.apply_limits = false;
    if (!protect) plan.disable_for_test = {"diewithparent"};
    std::string marker = fmt::format("aw-orphan-{}-{}", ::getpid(), protect);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t keeper = ::fork();
    if (keeper == 0) {
      ExecRequest req;
      req.argv = {"/bin/sh", "-c", "sleep 1000; : " + marker};
      req.env = {"PATH=/usr/bin:/bin"};
      req.cwd = clone;
      auto pid = make_sandbox_launcher(plan)(req);
      (void)!::write(ready[1], pid ? "Y" : "N", 1);
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ASSERT_EQ(c, 'Y');
    for (int i = 0; i < 200 && pids_with(marker).empty(); ++i) ::usleep(5000);  // exec of sh
    ASSERT_FALSE(pids_with(marker).empty());
    ::kill(keeper, SIGKILL);
    ::waitpid(keeper, nullptr, 0);
    if (!protect) ::usleep(300000);  // long past when a death signal would have landed
    std::vector<pid_t> left = pids_with(marker);
    for (int i = 0; i < 250 && !left.empty() && protect; ++i) {  // SIGKILL delivery is asynchronous
      ::usleep(20000);
      left = pids_with(marker);
    }
    EXPECT_EQ(left.empty(), protect);
    // The orphaned init was reparented away from us: kill its namespace through it.
    for (pid_t p : left) ::kill(p, SIGKILL);
  }
}

}  // namespace
}  // namespace aw::test
