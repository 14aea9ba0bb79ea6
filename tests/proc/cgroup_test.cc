// The cgroup helpers on this machine's real hierarchies (v2 at /sys/fs/cgroup/unified and the v1
// freezer): detection, a phase folder, membership, kill, removal.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <sstream>

#include "helpers.h"
#include "proc/cgroup.h"
#include "proc/cgroup_v1.h"

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

// Where the sandbox's v1 limit groups go (proc/cgroup_v1.h), from sample /proc/self files.
// Docker on a cgroup v1 host (its default, the host's cgroup namespace): /proc/self/cgroup names
// the container's group from the hierarchy's root, while /sys/fs/cgroup/memory is a mount of that
// very group. The group is the mount itself; /sys/fs/cgroup/memory/docker/<id> does not exist.
constexpr const char* kDockerId =
    "d27440cce94365d5636a5cadab3bf723145a6d3b470f618d74f7b9e8961f81f4";

std::string docker_cgroup(const std::string& id) {
  return "9:name=systemd:/docker/" + id + "\n8:pids:/docker/" + id + "\n4:memory:/docker/" + id +
         "\n3:cpuset:/docker/" + id + "\n2:cpu,cpuacct:/docker/" + id + "\n0::/docker/" + id + "\n";
}

// As Docker mounts them: read-only, each from the container's group of its hierarchy.
std::string docker_mountinfo(const std::string& id) {
  std::string out =
      "80 79 0:47 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw\n";
  int n = 81;
  for (std::string c : {"cpuset", "cpu,cpuacct", "memory", "pids", "systemd"}) {
    std::string super = c == "systemd" ? "name=systemd" : c;
    out += fmt::format(
        "{} 80 0:{} /docker/{} /sys/fs/cgroup/{} ro,nosuid,nodev,noexec,relatime master:{} - "
        "cgroup cgroup rw,{}\n",
        n, n - 52, id, c, n - 70, super);
    ++n;
  }
  return out;
}

TEST(ProcCgroupV1, InADockerContainerTheGroupIsTheMountItselfNotAPathBelowIt) {
  std::string cg = docker_cgroup(kDockerId), mi = docker_mountinfo(kDockerId);
  auto memory = v1_group_dir(cg, mi, "memory");
  ASSERT_TRUE(memory) << memory.error().message;
  EXPECT_EQ(*memory, "/sys/fs/cgroup/memory");
  auto pids = v1_group_dir(cg, mi, "pids");
  ASSERT_TRUE(pids) << pids.error().message;
  EXPECT_EQ(*pids, "/sys/fs/cgroup/pids");
  // cpu is co-mounted with cpuacct here (and is not cpuset).
  auto cpu = v1_group_dir(cg, mi, "cpu");
  ASSERT_TRUE(cpu) << cpu.error().message;
  EXPECT_EQ(*cpu, "/sys/fs/cgroup/cpu,cpuacct");
}

TEST(ProcCgroupV1, OnAHostTheGroupIsItsPathBelowAMountOfTheRoot) {
  std::string cg = "4:memory:/process_api/17740a8043e4754abfb3be921d3d1c7a\n1:cpu:/\n0::/\n";
  std::string mi =
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  auto memory = v1_group_dir(cg, mi, "memory");
  ASSERT_TRUE(memory) << memory.error().message;
  EXPECT_EQ(*memory, "/sys/fs/cgroup/memory/process_api/17740a8043e4754abfb3be921d3d1c7a");
  auto cpu = v1_group_dir(cg, mi, "cpu");  // at the hierarchy's root
  ASSERT_TRUE(cpu) << cpu.error().message;
  EXPECT_EQ(*cpu, "/sys/fs/cgroup/cpu");
}

TEST(ProcCgroupV1, AGroupBelowTheMountsRootIsThatPathBelowTheMount) {
  std::string id = "abc";
  auto memory = v1_group_dir("4:memory:/docker/abc/inner/x\n", docker_mountinfo(id), "memory");
  ASSERT_TRUE(memory) << memory.error().message;
  EXPECT_EQ(*memory, "/sys/fs/cgroup/memory/inner/x");
}

TEST(ProcCgroupV1, AMountOfAnotherGroupDoesNotReachOursAndSaysSo) {
  // "/docker/abc" is a prefix of "/docker/abcd" as text, not as a path.
  auto memory = v1_group_dir("4:memory:/docker/abcd\n", docker_mountinfo("abc"), "memory");
  ASSERT_FALSE(memory);
  EXPECT_NE(memory.error().message.find("does not hold this process's group /docker/abcd"),
            std::string::npos)
      << memory.error().message;
  EXPECT_NE(memory.error().message.find("from /docker/abc at /sys/fs/cgroup/memory"),
            std::string::npos)
      << memory.error().message;
}

TEST(ProcCgroupV1, ALaterMountOfTheHierarchyWinsAndEscapesAreDecoded) {
  std::string mi = docker_mountinfo("abc") +
                   "200 80 0:32 /docker/abc /mnt/my\\040groups rw - cgroup cgroup rw,memory\n";
  auto memory = v1_group_dir("4:memory:/docker/abc\n", mi, "memory");
  ASSERT_TRUE(memory) << memory.error().message;
  EXPECT_EQ(*memory, "/mnt/my groups");
}

TEST(ProcCgroupV1, NoV1HierarchyOrNoMountOfItIsAnErrorNamingWhich) {
  auto v2_only = v1_group_dir("0::/user.slice\n",
                              "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "memory");
  ASSERT_FALSE(v2_only);
  EXPECT_NE(v2_only.error().message.find("no cgroup v1 memory hierarchy"), std::string::npos)
      << v2_only.error().message;
  // Listed in /proc/self/cgroup but not mounted here (a cgroup2 mount does not count).
  auto unmounted = v1_group_dir(
      "4:memory:/\n", "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,memory\n", "memory");
  ASSERT_FALSE(unmounted);
  EXPECT_NE(unmounted.error().message.find("no cgroup v1 memory hierarchy is mounted"),
            std::string::npos)
      << unmounted.error().message;
}

// On this machine, read independently of the code under test: the folder found for our own memory
// group lists this process among its members, wherever the hierarchy is mounted from (inside a
// container too).
TEST(ProcCgroupV1, OurOwnMemoryGroupHereListsThisProcess) {
  std::string self = read_or_empty("/proc/self/cgroup");
  bool v1_memory = false;
  std::istringstream lines(self);
  for (std::string line; std::getline(lines, line);) {
    size_t a = line.find(':'), b = line.find(':', a + 1);
    std::string names = "," + line.substr(a + 1, b - a - 1) + ",";
    v1_memory = v1_memory || names.find(",memory,") != std::string::npos;
  }
  if (!v1_memory || mounted_type("/sys/fs/cgroup/memory") != "cgroup") {
    if (test::ci() && v1_memory) FAIL() << "a cgroup v1 memory hierarchy that is not mounted";
    GTEST_SKIP() << "no cgroup v1 memory hierarchy here";
  }
  auto dir = own_v1_group_dir("memory");
  ASSERT_TRUE(dir) << dir.error().message;
  std::string procs = read_or_empty(*dir + "/cgroup.procs");
  std::string me = std::to_string(::getpid());
  bool listed = false;
  std::istringstream members(procs);
  for (std::string p; std::getline(members, p);) listed = listed || p == me;
  EXPECT_TRUE(listed) << *dir << "/cgroup.procs does not list " << me << ":\n" << procs;
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
