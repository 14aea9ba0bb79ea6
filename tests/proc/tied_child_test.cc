// spawn_tied_child: the child watch and serve start for a unit (issue 38, item 1) starts clean
// (no blocked or ignored signal, nothing open but 0, 1 and 2, its own process group) and dies
// with its parent. CStrings: the argv/envp arrays every exec is given.
#include "proc/tied_child.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "base/argv.h"
#include "base/fs.h"
#include "dirty_parent.h"
#include "helpers.h"

namespace aw {
namespace {

using test::DirtyParent;
using test::kNoSignals;
using test::status_field;

class TiedChildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-tied-child-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs argv to its end with spawn_tied_child; what it printed (stdout and stderr).
  std::string run(const std::vector<std::string>& argv, int* exit_code = nullptr) {
    std::string path = dir_ + "/out-" + std::to_string(++n_);
    int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    EXPECT_GE(out, 0) << path;
    auto pid = spawn_tied_child(argv, out);
    ::close(out);
    EXPECT_TRUE(pid) << pid.error().message;
    if (!pid) return "";
    int st = 0;
    EXPECT_EQ(::waitpid(*pid, &st, 0), *pid);
    if (exit_code) *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return read_or_empty(path);
  }

  std::string dir_;
  int n_ = 0;
};

TEST_F(TiedChildTest, NoSignalIsBlockedOrIgnoredInTheChild) {
  DirtyParent parent;
  ASSERT_TRUE(parent.ok());
  std::string status = run({"/bin/cat", "/proc/self/status"});
  ASSERT_NE(status_field(status, "SigBlk"), "") << status;
  EXPECT_EQ(status_field(status, "SigBlk"), kNoSignals) << "a blocked SIGUSR1 outlived the exec";
  EXPECT_EQ(status_field(status, "SigIgn"), kNoSignals) << "an ignored SIGPIPE outlived the exec";
}

TEST_F(TiedChildTest, OnlyStdinStdoutAndStderrAreOpenInTheChild) {
  DirtyParent parent;
  ASSERT_TRUE(parent.ok());
  std::string out_path = dir_ + "/out-" + std::to_string(n_ + 1);
  std::string fds = run({"/bin/ls", "-l", "/proc/self/fd/"});
  EXPECT_EQ(fds.find(parent.leaked_path()), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 0 -> /dev/null"), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 1 -> " + out_path), std::string::npos) << fds;
  EXPECT_NE(fds.find(" 2 -> " + out_path), std::string::npos) << fds;
}

TEST_F(TiedChildTest, TheChildGetsTheArgvAndTheEnvironmentAsGiven) {
  ASSERT_EQ(::setenv("AW_TIED_CHILD_TEST", "kept", 1), 0);
  std::string out = run({"/bin/sh", "-c", "printf '%s|%s|%s' \"$0\" \"$1\" \"$AW_TIED_CHILD_TEST\"",
                         "zero", "one two"});
  ::unsetenv("AW_TIED_CHILD_TEST");
  EXPECT_EQ(out, "zero|one two|kept");
}

TEST_F(TiedChildTest, AProgramThatCannotBeExecutedEndsTheChildWith127) {
  int code = 0;
  run({dir_ + "/no-such-program"}, &code);
  EXPECT_EQ(code, 127);
  EXPECT_FALSE(spawn_tied_child({}, 1)) << "an empty argv is refused";
}

TEST_F(TiedChildTest, TheChildLeadsAProcessGroupOfItsOwn) {
  std::string m = test::marker();
  int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  auto pid = spawn_tied_child({"/bin/sleep", m}, null);
  ::close(null);
  ASSERT_TRUE(pid) << pid.error().message;
  // Once it shows sleep's command line it has exec'd, so its setup is done.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (read_or_empty("/proc/" + std::to_string(*pid) + "/cmdline").find(m) == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(::getpgid(*pid), *pid);
  ::kill(*pid, SIGKILL);
  ::waitpid(*pid, nullptr, 0);
}

// watch or serve killed outright (no terminate_all): the unit's run must not go on alone.
TEST_F(TiedChildTest, TheChildGetsSigtermWhenItsParentDies) {
  std::string m = test::marker();
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  pid_t mid = ::fork();
  ASSERT_GE(mid, 0);
  if (mid == 0) {
    int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    auto pid = spawn_tied_child({"/bin/sleep", m}, null);
    pid_t got = pid ? *pid : -1;
    (void)!::write(p[1], &got, sizeof got);
    ::_exit(0);
  }
  ::close(p[1]);
  pid_t child = -1;
  ASSERT_EQ(::read(p[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(p[0]);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(mid, nullptr, 0), mid);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!test::processes_with(m).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(test::processes_with(m).empty()) << "the child outlived its parent";
  for (pid_t left : test::processes_with(m)) ::kill(left, SIGKILL);
}

TEST(ProcCStrings, EndsWithNullptrAndKeepsEachString) {
  CStrings none;
  ASSERT_NE(none.get(), nullptr);
  EXPECT_EQ(none.get()[0], nullptr);
  EXPECT_TRUE(none.empty());
  CStrings c({"/bin/true", "", "two words"});
  ASSERT_EQ(c.size(), 3u);
  EXPECT_STREQ(c.get()[0], "/bin/true");
  EXPECT_STREQ(c.get()[1], "");
  EXPECT_STREQ(c.get()[2], "two words");
  EXPECT_EQ(c.get()[3], nullptr);
}

TEST(ProcCStrings, AMoveKeepsThePointersAndACopyHasItsOwn) {
  // A short string lives inside its std::string: a copy that shared the pointers would read the
  // first one's memory once that is gone.
  auto c = std::make_unique<CStrings>(std::vector<std::string>{"a", std::string(100, 'b')});
  CStrings copy(*c);
  EXPECT_NE(copy.get()[0], c->get()[0]);
  char* const* before = c->get();
  CStrings moved(std::move(*c));
  EXPECT_EQ(moved.get(), before);
  c.reset();
  CStrings assigned;
  assigned = copy;
  for (const CStrings* x : {&copy, &moved, &assigned}) {
    EXPECT_STREQ(x->get()[0], "a");
    EXPECT_EQ(std::string(x->get()[1]), std::string(100, 'b'));
    EXPECT_EQ(x->get()[2], nullptr);
  }
  EXPECT_NE(assigned.get()[0], copy.get()[0]);
}

}  // namespace
}  // namespace aw
