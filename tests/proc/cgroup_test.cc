// The cgroup helpers on this machine's real hierarchies (v2 at /sys/fs/cgroup/unified and the v1
// freezer): detection, a phase folder, membership, kill, removal.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "helpers.h"
#include "proc/cgroup.h"

namespace aw {
namespace {

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// A child that joins the cgroup (as the launcher's child does) and then sleeps.
pid_t child_in(const PhaseCgroup& cg) {
  int p[2];
  if (::pipe(p) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    std::string me = std::to_string(::getpid());
    int fd = ::open(cg.procs.c_str(), O_WRONLY);
    bool ok = fd >= 0 && ::write(fd, me.data(), me.size()) == static_cast<ssize_t>(me.size());
    char c = ok ? 'y' : 'n';
    (void)!::write(p[1], &c, 1);
    for (;;) ::pause();
  }
  char c = 0;
  (void)!::read(p[0], &c, 1);
  ::close(p[0]);
  ::close(p[1]);
  return c == 'y' ? pid : -pid;
}

void kill_and_remove(CgroupMode mode, CgroupKind kind) {
  CgroupRoots roots = find_cgroup_roots(mode);
  if ((kind == CgroupKind::v2 ? roots.v2 : roots.v1_freezer).empty()) {
    if (test::ci()) FAIL() << "no such cgroup hierarchy here (CI=true: no skipping)";
    GTEST_SKIP() << "no such cgroup hierarchy here";
  }
  std::string leaf = "cgtest-" + std::to_string(::getpid()) + "-" + std::to_string(int(kind));
  PhaseCgroup cg = create_phase_cgroup(roots, leaf);
  ASSERT_EQ(cg.kind, kind);
  ASSERT_TRUE(exists(cg.dir));
  pid_t pid = child_in(cg);
  ASSERT_GT(pid, 0) << "child could not join " << cg.procs;
  EXPECT_EQ(cgroup_members(cg), std::vector<pid_t>{pid});
  std::vector<pid_t> noted;
  cgroup_kill_all(cg, [&](pid_t p) { noted.push_back(p); });
  EXPECT_EQ(noted, std::vector<pid_t>{pid});
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  EXPECT_TRUE(cgroup_members(cg).empty());
  EXPECT_TRUE(remove_phase_cgroup(cg));
  EXPECT_FALSE(exists(cg.dir));
  if (!cg.pids_dir.empty()) {
    EXPECT_FALSE(exists(cg.pids_dir));
  }
}

// What `mount` lists for a path's file system type, read independently of the code under test.
std::string mounted_type(const std::string& path) {
  std::string mounts = read_or_empty("/proc/self/mounts");
  size_t at = mounts.find(" " + path + " ");
  if (at == std::string::npos) return "";
  size_t b = at + path.size() + 2;
  return mounts.substr(b, mounts.find(' ', b) - b);
}

TEST(ProcCgroup, FindsTheV2HierarchyAndTheV1Freezer) {
  CgroupRoots all = find_cgroup_roots(CgroupMode::automatic);
  std::string v2 = mounted_type("/sys/fs/cgroup") == "cgroup2"           ? "/sys/fs/cgroup"
                   : mounted_type("/sys/fs/cgroup/unified") == "cgroup2" ? "/sys/fs/cgroup/unified"
                                                                         : "";
  EXPECT_EQ(all.v2, v2);
  bool v1 = mounted_type("/sys/fs/cgroup/freezer") == "cgroup";
  EXPECT_EQ(all.v1_freezer, v1 ? "/sys/fs/cgroup/freezer" : "");
  EXPECT_EQ(all.v1_pids,
            v1 && mounted_type("/sys/fs/cgroup/pids") == "cgroup" ? "/sys/fs/cgroup/pids" : "");
  EXPECT_TRUE(find_cgroup_roots(CgroupMode::v1_only).v2.empty());
  EXPECT_TRUE(find_cgroup_roots(CgroupMode::v2_only).v1_freezer.empty());
  CgroupRoots none = find_cgroup_roots(CgroupMode::none);
  EXPECT_TRUE(none.v2.empty() && none.v1_freezer.empty());
}

TEST(ProcCgroup, V2FolderHoldsKillsAndIsRemoved) {
  AW_REQUIRE_ROOT();
  kill_and_remove(CgroupMode::v2_only, CgroupKind::v2);
}

TEST(ProcCgroup, V1FreezerFolderHoldsKillsAndIsRemoved) {
  AW_REQUIRE_ROOT();
  kill_and_remove(CgroupMode::v1_only, CgroupKind::v1);
}

TEST(ProcCgroup, NoRootsMeansNoCgroup) {
  PhaseCgroup cg = create_phase_cgroup(find_cgroup_roots(CgroupMode::none), "x");
  EXPECT_EQ(cg.kind, CgroupKind::none);
  EXPECT_STREQ(containment_name(cg.kind), "subreaper");
  EXPECT_TRUE(cgroup_members(cg).empty());
  EXPECT_TRUE(remove_phase_cgroup(cg));
}

pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// What a killed awaywork left: a phase folder whose keeper is gone, with a process still in it.
TEST(ProcCgroup, OrphanedPhaseFoldersAreEmptiedAndRemovedLiveOnesAreNot) {
  AW_REQUIRE_ROOT();
  CgroupRoots roots = find_cgroup_roots(CgroupMode::automatic);
  if (roots.v2.empty()) GTEST_SKIP() << "no cgroup v2 here";
  std::string tag = std::to_string(::getpid());
  PhaseCgroup orphan =
      create_phase_cgroup(roots, "sweep-" + tag + "-" + std::to_string(dead_pid()));
  PhaseCgroup live = create_phase_cgroup(roots, "sweep-" + tag + "-" + tag);
  ASSERT_EQ(orphan.kind, CgroupKind::v2);
  ASSERT_EQ(live.kind, CgroupKind::v2);
  pid_t pid = child_in(orphan);
  ASSERT_GT(pid, 0);
  EXPECT_GE(sweep_orphaned_phases(), 1);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  EXPECT_FALSE(exists(orphan.dir));
  EXPECT_TRUE(exists(live.dir));
  EXPECT_TRUE(remove_phase_cgroup(live));
}

TEST(ProcCgroup, AStaleFolderOfTheSameNameIsNotShared) {
  AW_REQUIRE_ROOT();
  CgroupRoots roots = find_cgroup_roots(CgroupMode::v2_only);
  std::string leaf = "cgstale-" + std::to_string(::getpid());
  PhaseCgroup first = create_phase_cgroup(roots, leaf);
  ASSERT_EQ(first.kind, CgroupKind::v2);
  PhaseCgroup second = create_phase_cgroup(roots, leaf);
  EXPECT_EQ(second.kind, CgroupKind::none);
  EXPECT_TRUE(remove_phase_cgroup(first));
}

}  // namespace
}  // namespace aw
