// The worker launcher: the phase runs as the worker, in its clone, with exactly the request's
// environment, whose values never appear on sudo's argv.
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/worker_launcher.h"
#include "user_fixture.h"

namespace aw {
namespace {

TEST(UserLauncher, ArgvCarriesNamesNeverValues) {
  WorkerUser w{"awaywork", 999, 999, "/nonexistent", "/usr/sbin/nologin", "awaywork", {}};
  ExecRequest r;
  r.argv = {"sh", "-c", "echo hi"};
  r.env = {"PATH=/usr/bin:/bin", "API_TOKEN=sk-test-0000000000000000FAKE"};
  r.cwd = "/tmp/awaywork-abc123";
  auto argv = worker_argv(w, r);
  ASSERT_TRUE(argv.has_value()) << argv.error().message;
  std::vector<std::string> want = {"/usr/bin/sudo",
                                   "-n",
                                   "-u",
                                   "awaywork",
                                   "--preserve-env=PATH,API_TOKEN",
                                   "--",
                                   "/usr/bin/env",
                                   "-C",
                                   "/tmp/awaywork-abc123",
                                   "--",
                                   "/usr/bin/sh",
                                   "-c",
                                   "echo hi"};
  EXPECT_EQ(*argv, want);
  for (const auto& a : *argv) EXPECT_EQ(a.find("sk-test"), std::string::npos);
}

TEST(UserLauncher, RunsAsWorkerInItsCloneWithTheGivenEnvironment) {
  AW_NEED_USERS(u);
  std::string out = test::run_as(u->owner_uid, u->owner_gid, [&]() -> std::string {
    ::setenv("OWNER_ONLY", "owner-secret", 1);  // in the caller's environ, not the request's
    auto f = make_unit_folder();
    if (!f) return "mkdtemp failed";
    Handoff h{u->worker, u->owner_uid, u->owner_gid, {*f}};
    if (!before_phase(h)) return "handoff failed";
    int fds[2];
    if (::pipe(fds) != 0) return "pipe failed";
    ExecRequest r;
    r.argv = {"sh", "-c", "id -u; pwd; echo \"$API_TOKEN\"; echo \"${OWNER_ONLY-unset}\""};
    r.env = {"PATH=/usr/bin:/bin", "API_TOKEN=sk-test-0000000000000000FAKE"};
    r.cwd = f->path;
    r.stdout_fd = fds[1];
    auto pid = make_worker_launcher(u->worker)(r);
    ::close(fds[1]);
    if (!pid) return pid.error().message;
    std::string got;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
      got.append(buf, static_cast<size_t>(n));
    int status = 0;
    ::waitpid(*pid, &status, 0);
    if (!after_phase(h)) got += "after_phase failed";
    remove_unit_folder(*f);
    return got + fmt::format("exit {}|{}", WEXITSTATUS(status), f->path);
  });
  auto bar = out.rfind('|');
  ASSERT_NE(bar, std::string::npos) << out;
  std::string path = out.substr(bar + 1);
  EXPECT_EQ(out.substr(0, bar), fmt::format("{}\n{}\nsk-test-0000000000000000FAKE\nunset\nexit 0",
                                            u->worker.uid, path));
}

}  // namespace
}  // namespace aw
