// What the OS sandbox over isolation user hands the worker: the plan as JSON (every field back as
// it went), and the helper that builds the sandbox, used in place only where the worker can run
// it and not change it, copied into the owner's 711 folder otherwise.
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/fs.h"
#include "isolate/sandbox/plan_json.h"
#include "isolate/user/worker_sandbox.h"
#include "user_fixture.h"

namespace aw {
namespace {

TEST(PlanJson, EveryFieldRoundTrips) {
  SandboxPlan p;
  p.mode = SandboxMode::preferred;
  p.network = Network::host;
  p.allow = {"example.com", "*.x.org"};
  p.proxy_socket = "/run/x.sock";
  p.proxy_port = 4128;
  p.writable = {"/tmp/awaywork-abcdef/work", "/tmp/awaywork-ghijkl"};
  p.hidden = {"/home/o/.ssh", "/home/o/.config/awaywork"};
  p.readable = {{"/tmp/real/agent", "/tmp/given/agent"}};
  p.limits = {123456789, 77, 1.5, false};
  p.apply_limits = false;
  p.cgroup_name = "unit-1";
  p.unit_netns_fd = 9;
  p.hostname = "box";
  p.disable_for_test = {"netns", "seccomp"};
  auto back = plan_from_json(plan_to_json(p));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->mode, p.mode);
  EXPECT_EQ(back->network, p.network);
  EXPECT_EQ(back->allow, p.allow);
  EXPECT_EQ(back->proxy_socket, p.proxy_socket);
  EXPECT_EQ(back->proxy_port, p.proxy_port);
  EXPECT_EQ(back->writable, p.writable);
  EXPECT_EQ(back->hidden, p.hidden);
  ASSERT_EQ(back->readable.size(), 1u);
  EXPECT_EQ(back->readable[0].source, "/tmp/real/agent");
  EXPECT_EQ(back->readable[0].target, "/tmp/given/agent");
  EXPECT_EQ(back->limits.memory_bytes, 123456789u);
  EXPECT_EQ(back->limits.pids, 77);
  EXPECT_EQ(back->limits.cpus, 1.5);
  EXPECT_FALSE(back->limits.enabled);
  EXPECT_FALSE(back->apply_limits);
  EXPECT_EQ(back->cgroup_name, "unit-1");
  EXPECT_EQ(back->unit_netns_fd, -1);  // an fd does not travel
  EXPECT_EQ(back->hostname, "box");
  EXPECT_EQ(back->disable_for_test, p.disable_for_test);
}

TEST(PlanJson, BadTextNamesWhatIsWrong) {
  EXPECT_FALSE(plan_from_json("[]"));
  auto bad = plan_from_json(R"({"mode": "sometimes"})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("mode"), std::string::npos) << bad.error().message;
}

std::string folder_of(const std::string& helper) {
  return helper.substr(0, helper.rfind('/'));
}

TEST(WorkerSandboxFiles, HelperTheWorkerCanRunIsUsedInPlace) {
  AW_NEED_USERS(u);
  ASSERT_TRUE(worker_can_run_unchanged("/bin/true", u->worker));
  auto f = WorkerSandboxFiles::make(u->worker, "/bin/true");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ((*f)->helper(), "/bin/true");
  EXPECT_FALSE((*f)->copied());
}

TEST(WorkerSandboxFiles, HelperInAClosedFolderIsCopiedWhereTheWorkerCanRunItButNotChangeIt) {
  AW_NEED_USERS(u);
  char tmpl[] = "/tmp/aw-closed-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);  // root's, 700: the worker cannot enter
  std::string closed = std::string(tmpl) + "/awaywork";
  ASSERT_EQ(test::sh(fmt::format("cp /bin/true {}", closed)), 0);
  EXPECT_FALSE(worker_can_run_unchanged(closed, u->worker));
  std::string dir;
  {
    auto f = WorkerSandboxFiles::make(u->worker, closed);
    ASSERT_TRUE(f) << f.error().message;
    EXPECT_TRUE((*f)->copied());
    std::string helper = (*f)->helper();
    dir = folder_of(helper);
    EXPECT_EQ(dir.rfind("/tmp/awaywork-helper-", 0), 0u) << dir;
    EXPECT_TRUE(worker_can_run_unchanged(helper, u->worker));
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0711u);
    auto plan = (*f)->write_plan(SandboxPlan{}, 3);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_EQ(*plan, dir + "/plan-3.json");
    // As the worker: the helper runs, the plan reads, nothing there can be changed.
    std::string seen = test::run_as(u->worker.uid, u->worker.gid, [&] {
      std::string out;
      out += ::access(helper.c_str(), X_OK) == 0 ? "x" : "-";
      out += read_file(*plan) ? "r" : "-";
      out += ::access(helper.c_str(), W_OK) == 0 ? "w" : "-";
      out += ::unlink((*plan).c_str()) == 0 ? "u" : "-";
      out += ::access(dir.c_str(), W_OK) == 0 ? "W" : "-";
      return out;
    });
    EXPECT_EQ(seen, "xr---");
  }
  struct stat st {};
  EXPECT_NE(::lstat(dir.c_str(), &st), 0) << dir << " outlived the unit";
  remove_tree(tmpl);
}

}  // namespace
}  // namespace aw
