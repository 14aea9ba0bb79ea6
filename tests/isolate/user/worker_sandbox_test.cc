// What the OS sandbox over isolation user hands the worker: the plan as JSON (every field back as
// it went), and the helper that builds the sandbox, used in place only where the worker can run
// it and not change it, copied into the owner's 711 folder otherwise.
#include <glob.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "isolate/sandbox/plan_json.h"
#include "isolate/user/socket_grant.h"
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
  p.bridges = {{"/tmp/awaywork-helper-abcdef/inference-0f.sock", 4180}, {"/run/b.sock", 4181}};
  p.writable = {"/tmp/awaywork-abcdef/work", "/tmp/awaywork-ghijkl"};
  p.hidden = {"/home/o/.ssh", "/home/o/.config/awaywork"};
  p.readable = {{"/tmp/real/agent", "/tmp/given/agent", "program"}};
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
  ASSERT_EQ(back->bridges.size(), 2u);
  EXPECT_EQ(back->bridges[0].socket, "/tmp/awaywork-helper-abcdef/inference-0f.sock");
  EXPECT_EQ(back->bridges[0].port, 4180);
  EXPECT_EQ(back->bridges[1].socket, "/run/b.sock");
  EXPECT_EQ(back->bridges[1].port, 4181);
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
  // Issue 40, item 1: the mutation tests' switches are set by a test's own plan, in-process; they
  // never travel to the process that builds the sandbox, and a plan naming them is refused.
  EXPECT_TRUE(back->disable_for_test.empty());
  EXPECT_EQ(plan_to_json(p).find("disable_for_test"), std::string::npos);
  nlohmann::json weakened = nlohmann::json::parse(plan_to_json(p));
  weakened["disable_for_test"] = {"netns"};
  auto refused = plan_from_json(weakened.dump());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            R"(sandbox plan: field "disable_for_test" is test-only and never travels)");
  weakened["disable_for_test"] = nlohmann::json::array();
  EXPECT_FALSE(plan_from_json(weakened.dump()));
}

TEST(PlanJson, BadTextNamesWhatIsWrong) {
  EXPECT_FALSE(plan_from_json("[]"));
  auto bad = plan_from_json(R"({"mode": "sometimes"})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("mode"), std::string::npos) << bad.error().message;
}

// Issue 38, item 2: each field missing or of the wrong type is named, read without a throw (no
// try/catch around nlohmann's get<>()); a list that is not there is an error, not an empty one.
TEST(PlanJson, AWronglyTypedOrMissingFieldIsNamed) {
  SandboxPlan p;
  p.bridges = {{"/run/b.sock", 4181}};
  auto named = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = nlohmann::json::parse(plan_to_json(p));
    change(j);
    auto back = plan_from_json(j.dump());
    return back ? std::string("(no error)") : back.error().message;
  };
  EXPECT_EQ(named([](auto& j) { j["proxy_port"] = "3128"; }),
            R"(sandbox plan: field "proxy_port": expected an integer, got string)");
  EXPECT_EQ(named([](auto& j) { j["proxy_port"] = 70000; }),
            R"(sandbox plan: field "proxy_port": 70000 is out of range [0, 65535])");
  EXPECT_EQ(named([](auto& j) { j["bridges"][0]["port"] = true; }),
            R"(sandbox plan: field "bridges[0].port": expected an integer, got boolean)");
  EXPECT_EQ(named([](auto& j) {
              j["hidden"] = {"/home/o/.ssh", 7};
            }),
            R"(sandbox plan: field "hidden[1]": expected a string, got number)");
  EXPECT_EQ(named([](auto& j) { j.erase("hidden"); }),
            R"(sandbox plan: field "hidden" is missing)");
  EXPECT_EQ(named([](auto& j) { j["limits"]["cpus"] = "2"; }),
            R"(sandbox plan: field "limits.cpus": expected a number, got string)");
  EXPECT_EQ(named([](auto& j) { j["mode"] = 1; }),
            R"(sandbox plan: field "mode": expected a string, got number)");
  nlohmann::json big = nlohmann::json::parse(plan_to_json(p));
  big["limits"]["memory_bytes"] = UINT64_MAX;  // past INT64_MAX, as written
  auto back = plan_from_json(big.dump());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->limits.memory_bytes, UINT64_MAX);
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

int listen_on(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  mode_t old = ::umask(0177);  // 0600, as the inference proxy makes its socket
  int rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::umask(old);
  if (rc != 0 || ::listen(fd, 8) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(SocketGrant, OnlyTheWorkerGainsTheRightToConnect) {
  AW_NEED_USERS(u);
  auto f = WorkerSandboxFiles::make(u->worker, "/bin/true");
  ASSERT_TRUE(f) << f.error().message;
  auto a = (*f)->socket_path("inference"), b = (*f)->socket_path("inference");
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  EXPECT_TRUE((*f)->holds(*a));
  EXPECT_FALSE((*f)->holds("/tmp/elsewhere.sock"));
  int fd = listen_on(*a);
  ASSERT_GE(fd, 0) << *a;
  auto as = [&](uid_t uid, gid_t gid) {
    return test::run_as(uid, gid, [&] { return test::connect_result(*a); });
  };
  EXPECT_EQ(as(u->worker.uid, u->worker.gid), "EACCES") << "0600 before the grant";
  ASSERT_TRUE(grant_socket_to(*a, u->worker.uid));
  EXPECT_EQ(as(u->worker.uid, u->worker.gid), "ok");
  EXPECT_EQ(as(u->owner_uid, u->owner_gid), "EACCES");
  EXPECT_EQ(as(65534, 65534), "EACCES");
  // Same group as the socket's owner: still nothing (group::--- under the mask).
  EXPECT_EQ(as(65534, 0), "EACCES");
  ::close(fd);
}

TEST(SocketGrant, RefusesWhatIsNotASocketOfItsOwn) {
  char tmpl[] = "/tmp/aw-grant-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  ASSERT_TRUE(write_file(dir + "/plain", "x", 0600));
  EXPECT_FALSE(grant_socket_to(dir + "/plain", 65534));
  ASSERT_EQ(::symlink((dir + "/plain").c_str(), (dir + "/link").c_str()), 0);
  EXPECT_FALSE(grant_socket_to(dir + "/link", 65534));
  EXPECT_FALSE(grant_socket_to(dir + "/absent", 65534));
  remove_tree(dir);
}

}  // namespace
}  // namespace aw
