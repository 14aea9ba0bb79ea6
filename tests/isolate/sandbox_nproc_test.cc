// Where no cgroup gives a pids limit (`limits: off`, an owner without a delegated pids controller),
// the sandbox sets RLIMIT_NPROC to limits.pids inside its own user namespace, where the kernel
// counts it for that namespace alone: a fork bomb stops, while the owner outside has more
// processes than the limit.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

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

TEST(SandboxNproc, AForkBombStopsAtLimitsPidsWithoutAnyCgroup) {
  TempDir dir;
  std::string clone = dir.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  SandboxPlan plan;
  plan.writable = {clone};
  plan.limits = Limits{256ull << 20, 20, 1.0};
  plan.apply_limits = false;  // no cgroup at all: RLIMIT_NPROC is the only cap
  auto missing = probe_sandbox(plan);
  if (!missing.empty()) {
    if (test::ci()) FAIL() << "the sandbox cannot be built here: " << missing[0].feature;
    GTEST_SKIP() << "the sandbox cannot be built here: " << missing[0].feature;
  }
  // The limit is per namespace: the owner already has more processes outside than it allows.
  int outside = processes_of_uid(::getuid());
  ASSERT_GT(outside, 20) << "precondition: the owner needs more than 20 processes outside";
  auto r = run_with(make_sandbox_launcher(plan),
                    // Builtins only once the bomb ran: at the limit nothing more can fork.
                    {"/bin/sh", "-c",
                     "while read -r l; do case $l in 'Max processes'*) echo $l;; esac; done "
                     "</proc/self/limits; i=0; while [ $i -lt 100 ]; do sleep 60 & i=$((i+1)); "
                     "done; set -- /proc/[0-9]*; echo $#"},
                    clone);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out.rfind("Max processes 20 20 processes\n", 0), 0u) << r.out;
  int inside = std::stoi(r.out.substr(r.out.find('\n') + 1));
  EXPECT_LE(inside, 20) << r.out;
  EXPECT_GE(inside, 10) << "the bomb did not even start: " << r.out << r.err;
  EXPECT_NE(r.err.find("fork"), std::string::npos) << "no fork was refused: " << r.err;
}

}  // namespace
}  // namespace aw
