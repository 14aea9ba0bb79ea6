// Children: how `serve` stops the units it started on SIGINT/SIGTERM (issue 25, item 3): each gets
// SIGTERM and the grace, then SIGKILL; a released one is waited for like any other; nothing is
// started once stopping has begun.
#include "serve/children.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "../proc/dirty_parent.h"

namespace aw {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class ChildrenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-children-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A child that ignores SIGTERM, once its trap is set (it says so).
  pid_t stubborn(Children& kids) {
    auto pid = kids.spawn({"/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"});
    EXPECT_TRUE(pid) << pid.error().message;
    if (!pid) return -1;
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (kids.output(*pid).find("ready") == std::string::npos && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return *pid;
  }

  // Runs argv to its end as a unit's child; what it printed.
  std::string run(Children& kids, const std::vector<std::string>& argv) {
    auto pid = kids.spawn(argv);
    EXPECT_TRUE(pid) << pid.error().message;
    if (!pid) return "";
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (!kids.status(*pid) && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(kids.status(*pid).value_or(-1), 0) << "ended, with 0";
    return kids.output(*pid);
  }

  std::string dir_;
};

TEST_F(ChildrenTest, OneThatIgnoresSigtermIsKilledWhenTheGraceEnds) {
  Children kids(dir_ + "/scratch");
  pid_t pid = stubborn(kids);
  ASSERT_GT(pid, 0);
  auto start = Clock::now();
  kids.terminate_all(300);
  double took = seconds_since(start);
  EXPECT_GE(took, 0.25) << "the grace is given";
  EXPECT_LT(took, 10.0);
  auto st = kids.status(pid);
  ASSERT_TRUE(st) << "reaped before terminate_all returned";
  EXPECT_TRUE(WIFSIGNALED(*st) && WTERMSIG(*st) == SIGKILL) << *st;
}

// A unit started from the page is released once it made its record; reap() then forgets it when
// it ends. terminate_all took that for "still running" and waited out the whole grace.
TEST_F(ChildrenTest, AReleasedOneEndingOnSigtermIsNotWaitedForTheWholeGrace) {
  Children kids(dir_ + "/scratch");
  auto pid = kids.spawn({"/bin/sh", "-c", "exec sleep 60"});
  ASSERT_TRUE(pid) << pid.error().message;
  kids.release(*pid);
  auto start = Clock::now();
  kids.terminate_all(20000);
  EXPECT_LT(seconds_since(start), 5.0);
  EXPECT_NE(::kill(*pid, 0), 0) << "reaped: the pid is no longer a process of ours";
}

TEST_F(ChildrenTest, ASecondSignalEndsTheGraceAtOnce) {
  Children kids(dir_ + "/scratch");
  pid_t pid = stubborn(kids);
  ASSERT_GT(pid, 0);
  auto start = Clock::now();
  std::thread stopping([&] { kids.terminate_all(60000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kids.hurry();
  stopping.join();
  EXPECT_LT(seconds_since(start), 10.0);
  auto st = kids.status(pid);
  ASSERT_TRUE(st);
  EXPECT_TRUE(WIFSIGNALED(*st) && WTERMSIG(*st) == SIGKILL) << *st;
}

TEST_F(ChildrenTest, NothingIsStartedOnceStoppingBegan) {
  Children kids(dir_ + "/scratch");
  kids.terminate_all(0);
  auto pid = kids.spawn({"/bin/true"});
  ASSERT_FALSE(pid) << "started pid " << *pid << " after terminate_all";
  EXPECT_NE(pid.error().message.find("stopping"), std::string::npos) << pid.error().message;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/scratch"))
    ADD_FAILURE() << "left behind: " << e.path();
}

// The server's own state stays its own (issue 38, item 1): only SIGPIPE was put back to its
// default, so an ignored SIGHUP (serve started under nohup) reached the run.
TEST_F(ChildrenTest, NoSignalOfTheServersIsBlockedOrIgnoredInTheRun) {
  Children kids(dir_ + "/scratch");
  test::DirtyParent server;
  ASSERT_TRUE(server.ok());
  std::string status = run(kids, {"/bin/cat", "/proc/self/status"});
  ASSERT_NE(test::status_field(status, "SigBlk"), "") << status;
  EXPECT_EQ(test::status_field(status, "SigBlk"), test::kNoSignals) << "SIGUSR1 stayed blocked";
  EXPECT_EQ(test::status_field(status, "SigIgn"), test::kNoSignals) << "SIGHUP stayed ignored";
}

TEST_F(ChildrenTest, NoFdOfTheServersIsOpenInTheRun) {
  Children kids(dir_ + "/scratch");
  test::DirtyParent server;
  ASSERT_TRUE(server.ok());
  std::string fds = run(kids, {"/bin/ls", "-l", "/proc/self/fd/"});
  EXPECT_EQ(fds.find(server.leaked_path()), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 0 -> /dev/null"), std::string::npos) << fds;
}

}  // namespace
}  // namespace aw
