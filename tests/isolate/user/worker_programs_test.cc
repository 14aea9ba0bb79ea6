// A phase's program found as the worker finds it: an entry under the owner's closed home is passed
// over for a system-wide one, one only there is refused with the fix, and a script's interpreter
// (or a link's target) under that home is refused too.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "isolate/user/worker_programs.h"
#include "user_fixture.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

class WorkerPrograms : public ::testing::Test {
 protected:
  // bin folders: one in the owner's closed home, one open to everyone (as /usr/local/bin is).
  void make(const Users& u) {
    closed = u.owner_home + "/aw-test-bin";
    char tmpl[] = "/var/tmp/aw-open-bin-XXXXXX";
    open = ::mkdtemp(tmpl);
    ASSERT_EQ(::chmod(open.c_str(), 0755), 0);
    fs::create_directories(closed);
    path = closed + ":" + open + ":/usr/bin:/bin";
  }
  void program(const std::string& dir, const std::string& name, const std::string& body) {
    std::string p = dir + "/" + name;
    std::ofstream(p) << body;
    ASSERT_EQ(::chmod(p.c_str(), 0755), 0);
  }
  void TearDown() override {
    if (!closed.empty()) fs::remove_all(closed);
    if (!open.empty()) fs::remove_all(open);
  }
  std::string closed, open, path;
};

TEST_F(WorkerPrograms, OneOnlyUnderTheClosedHomeIsRefusedWithTheFix) {
  AW_NEED_USERS(u);
  make(*u);
  program(closed, "aw-agent-cli", "#!/bin/sh\nexit 0\n");
  auto r = resolve_for_worker("aw-agent-cli", path, u->worker);
  ASSERT_FALSE(r) << *r;
  EXPECT_NE(
      r.error().message.find(closed + "/aw-agent-cli is not runnable by worker " + u->worker.name),
      std::string::npos)
      << r.error().message;
  auto checks = program_checks({{"agent test", "aw-agent-cli"}}, path, u->worker);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].ok);
  EXPECT_NE(checks[0].fix.find("install aw-agent-cli system-wide"), std::string::npos)
      << checks[0].fix;
  auto st = programs_runnable({{"agent test", "aw-agent-cli"}}, path, u->worker);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("system-wide"), std::string::npos) << st.error().message;
}

TEST_F(WorkerPrograms, ASystemWideOneLaterInPathIsWhatTheWorkerRuns) {
  AW_NEED_USERS(u);
  make(*u);
  program(closed, "aw-agent-cli", "#!/bin/sh\nexit 0\n");
  program(open, "aw-agent-cli", "#!/bin/sh\nexit 0\n");
  auto r = resolve_for_worker("aw-agent-cli", path, u->worker);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, open + "/aw-agent-cli");
}

TEST_F(WorkerPrograms, AScriptWhoseInterpreterIsUnderTheHomeIsRefused) {
  AW_NEED_USERS(u);
  make(*u);
  program(closed, "aw-node", "#!/bin/sh\nexit 0\n");
  program(open, "aw-cli-env", "#!/usr/bin/env aw-node\n");
  program(open, "aw-cli-abs", "#!" + closed + "/aw-node\n");
  for (const char* name : {"aw-cli-env", "aw-cli-abs"}) {
    auto r = resolve_for_worker(name, path, u->worker);
    ASSERT_FALSE(r) << name << " resolved to " << *r;
    EXPECT_NE(r.error().message.find("is a script whose interpreter"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(closed + "/aw-node"), std::string::npos) << r.error().message;
  }
}

TEST_F(WorkerPrograms, AnOpenLinkIntoTheClosedHomeIsRefusedNamingItsTarget) {
  AW_NEED_USERS(u);
  make(*u);
  program(closed, "aw-real", "#!/bin/sh\nexit 0\n");
  fs::create_symlink(closed + "/aw-real", open + "/aw-linked");
  auto r = resolve_for_worker("aw-linked", open + ":/usr/bin", u->worker);
  ASSERT_FALSE(r) << *r;
  EXPECT_NE(r.error().message.find("really " + closed + "/aw-real"), std::string::npos)
      << r.error().message;
}

TEST_F(WorkerPrograms, SystemProgramsResolveAndAMissingOneSaysNotFound) {
  AW_NEED_USERS(u);
  auto sh = resolve_for_worker("sh", "/usr/bin:/bin", u->worker);
  ASSERT_TRUE(sh) << sh.error().message;
  auto none = resolve_for_worker("aw-no-such-program", "/usr/bin:/bin", u->worker);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("not found in PATH"), std::string::npos);
}

}  // namespace
}  // namespace aw::test
