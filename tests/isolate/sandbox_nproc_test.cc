// Where no cgroup gives a pids limit (`limits: off`, an owner without a delegated pids controller),
// the sandbox sets RLIMIT_NPROC to limits.pids inside its own user namespace, where the kernel
// counts it for that namespace alone: a fork bomb stops, while the owner outside has more
// processes than the limit.
#include <dirent.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <string>

#include "harness.h"
#include "isolate/sandbox/sandbox.h"

namespace aw {
namespace {

using test::run_with;
using test::TempDir;

int processes_of_uid(uid_t uid) {
  int n = 0;
  DIR* d = ::opendir("/proc");
  while (d)
    if (dirent* e = ::readdir(d)) {
      if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
      struct stat st {};
      if (::stat((std::string("/proc/") + e->d_name).c_str(), &st) == 0 && st.st_uid == uid) ++n;
    } else {
      break;
    }
  if (d) ::closedir(d);
  return n;
}

// The kernel exempts uid 0 from RLIMIT_NPROC (and root owners have cgroups anyway): the bomb runs
// as an ordinary user (nobody), who already has more processes outside than the limit allows.
TEST(SandboxNproc, AForkBombStopsAtLimitsPidsWithoutAnyCgroup) {
  if (::geteuid() != 0) {
    if (test::ci()) FAIL() << "needs root (to become nobody for the test)";
    GTEST_SKIP() << "needs root (to become nobody for the test)";
  }
  constexpr uid_t kNobody = 65534;
  TempDir dir;
  std::string clone = dir.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  ASSERT_EQ(::chown(dir.path.c_str(), kNobody, kNobody), 0);
  ASSERT_EQ(::chown(clone.c_str(), kNobody, kNobody), 0);
  SandboxPlan plan;
  plan.writable = {clone};
  plan.limits = Limits{256ull << 20, 20, 1.0};
  plan.apply_limits = false;  // no cgroup at all: RLIMIT_NPROC is the only cap
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    gid_t g = kNobody;
    if (::setgroups(1, &g) != 0 || ::setresgid(g, g, g) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0)
      ::_exit(2);
    std::string said;
    auto missing = probe_sandbox(plan);
    std::vector<pid_t> outside;
    if (!missing.empty()) {
      said = "SKIP the sandbox cannot be built as nobody: " + missing[0].feature;
    } else {
      // More processes of nobody's outside than the limit: the count inside is the namespace's.
      for (int i = 0; i < 25; ++i)
        if (pid_t p = ::fork(); p == 0) {
          ::execl("/bin/sleep", "sleep", "30", nullptr);
          ::_exit(127);
        } else if (p > 0) {
          outside.push_back(p);
        }
      said = "OUTSIDE " + std::to_string(processes_of_uid(kNobody)) + "\n";
      auto r = run_with(make_sandbox_launcher(plan),
                        // dash gives up at the first refused fork, so the bomb runs in a
                        // subshell; then builtins only: at the limit nothing more can fork.
                        {"/bin/sh", "-c",
                         "while read -r l; do case $l in 'Max processes'*) echo $l;; esac; "
                         "done </proc/self/limits; (i=0; while [ $i -lt 100 ]; do sleep 60 & "
                         "i=$((i+1)); done); set -- /proc/[0-9]*; echo $#"},
                        clone);
      said += r.started ? r.out + "ERR " + r.err : "NOTSTARTED " + r.start_error;
      for (pid_t p : outside) ::kill(p, SIGKILL);
    }
    (void)!::write(fds[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  test::drain(fds[0], got);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << got;
  if (got.rfind("SKIP ", 0) == 0) {
    if (test::ci()) FAIL() << got;
    GTEST_SKIP() << got;
  }
  ASSERT_EQ(got.rfind("OUTSIDE ", 0), 0u) << got;
  ASSERT_NE(got.find("Max processes"), std::string::npos) << got;
  EXPECT_GT(std::stoi(got.substr(8)), 20) << "precondition: nobody has more than 20 outside";
  std::string rest = got.substr(got.find('\n') + 1);
  EXPECT_EQ(rest.rfind("Max processes 20 20 processes\n", 0), 0u) << got;
  int inside = std::stoi(rest.substr(rest.find('\n') + 1));
  EXPECT_LE(inside, 20) << got;
  EXPECT_GE(inside, 10) << "the bomb did not even start: " << got;
  EXPECT_NE(rest.find("fork"), std::string::npos) << "no fork was refused: " << got;
}

}  // namespace
}  // namespace aw
