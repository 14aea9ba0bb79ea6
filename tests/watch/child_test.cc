// UnitChild: the `awaywork run` watch starts for a unit starts clean (issue 38, item 1). It was a
// plain fork and execv: a signal watch blocked or ignored (SIGPIPE) and every fd watch held without
// close-on-exec reached the run; serve's children were already reset. Both now start through
// spawn_tied_child (proc/tied_child.h).
#include "watch/child.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "../proc/dirty_parent.h"
#include "base/fs.h"

namespace aw {
namespace {

class UnitChildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-unit-child-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs argv as a unit's child to its end; its log.
  std::string run(const std::vector<std::string>& argv) {
    std::string log = dir_ + "/unit.log";
    ::unlink(log.c_str());
    auto c = UnitChild::spawn(argv, log);
    EXPECT_TRUE(c) << c.error().message;
    if (!c) return "";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!c->reap() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(c->reap().value_or(-1), 0) << "ended, with 0";
    return read_or_empty(log);
  }

  std::string dir_;
};

TEST_F(UnitChildTest, NoSignalOfWatchsIsBlockedOrIgnoredInTheRun) {
  test::DirtyParent watch;
  ASSERT_TRUE(watch.ok());
  std::string status = run({"/bin/cat", "/proc/self/status"});
  ASSERT_NE(test::status_field(status, "SigBlk"), "") << status;
  EXPECT_EQ(test::status_field(status, "SigBlk"), test::kNoSignals) << "SIGUSR1 stayed blocked";
  EXPECT_EQ(test::status_field(status, "SigIgn"), test::kNoSignals) << "SIGPIPE stayed ignored";
}

TEST_F(UnitChildTest, NoFdOfWatchsIsOpenInTheRun) {
  test::DirtyParent watch;
  ASSERT_TRUE(watch.ok());
  std::string fds = run({"/bin/ls", "-l", "/proc/self/fd/"});
  EXPECT_EQ(fds.find(watch.leaked_path()), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 0 -> /dev/null"), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 1 -> " + dir_ + "/unit.log"), std::string::npos) << fds;
}

}  // namespace
}  // namespace aw
