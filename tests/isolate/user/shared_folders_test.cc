// doctor for isolation user: world-writable folders without the sticky bit, outside /tmp,
// /var/tmp and /dev/shm, are warnings with the fix; sticky ones, links and other file systems are
// not followed or listed. And what the sweep after every unit walks (issue 41, item 4): every
// folder the worker may write into on the mounts worth searching, found; the worker's System V
// IPC objects read from /proc/sysvipc.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "isolate/user/ipc_leftovers.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/shared_folders.h"
#include "isolate/user/shared_places.h"

namespace aw {
namespace {

namespace fs = std::filesystem;

TEST(SharedFolders, ListsWorldWritableNonStickyFoldersOnlyWithTheFix) {
  // Not under /tmp, /var/tmp or /dev/shm: those are swept, so never listed (a build tree may
  // itself be under /tmp: then the home folder serves).
  std::string base = AW_BINARY_DIR;
  for (const auto& r : leftover_roots())
    if (base == r || base.rfind(r + "/", 0) == 0)
      base = std::getenv("HOME") ? std::getenv("HOME") : "/root";
  std::string tmpl = base + "/aw-shared-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string root = tmpl;
  fs::create_directories(root + "/open/inner");
  fs::create_directories(root + "/sticky");
  fs::create_directories(root + "/closed");
  ASSERT_EQ(::chmod((root + "/open").c_str(), 0777), 0);
  ASSERT_EQ(::chmod((root + "/open/inner").c_str(), 0757), 0);
  ASSERT_EQ(::chmod((root + "/sticky").c_str(), 01777), 0);
  fs::create_directory_symlink(root + "/open", root + "/link-to-open");
  auto found = open_shared_folders(root);
  EXPECT_EQ(found, (std::vector<std::string>{root + "/open", root + "/open/inner"}));
  Check c = shared_folders_check(root);
  EXPECT_TRUE(c.ok);  // a warning: it does not stop a unit
  EXPECT_EQ(c.detail.rfind("warning; ", 0), 0u) << c.detail;
  EXPECT_NE(c.detail.find("sudo chmod o-w '" + root + "/open'"), std::string::npos) << c.detail;
  ASSERT_EQ(::chmod((root + "/open").c_str(), 0755), 0);
  ASSERT_EQ(::chmod((root + "/open/inner").c_str(), 0755), 0);
  EXPECT_EQ(shared_folders_check(root).detail, "none found");
  fs::remove_all(root);
}

TEST(SharedFolders, TheSweptTreesAreNotListed) {
  for (const auto& f : open_shared_folders("/"))
    for (const char* swept : {"/tmp", "/var/tmp", "/dev/shm"})
      EXPECT_NE(f.rfind(std::string(swept) + "/", 0), 0u) << f;
}

TEST(SharedPlaces, TheMountTableIsReadWithItsEscapesAndReadOnlyFlag) {
  auto m = parse_mountinfo(
      "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
      "28 27 0:25 / /mnt/with\\040space ro,nosuid master:2 unbindable - tmpfs none ro,size=4k\n"
      "garbage line\n"
      "30 24 0:27 / /dev/mqueue rw,nosuid - mqueue mqueue rw\n");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].path, "/");
  EXPECT_EQ(m[0].type, "ext4");
  EXPECT_FALSE(m[0].read_only);
  EXPECT_EQ(m[1].path, "/mnt/with space");
  EXPECT_EQ(m[1].type, "tmpfs");
  EXPECT_TRUE(m[1].read_only);
  EXPECT_EQ(m[2].type, "mqueue");
}

TEST(SharedPlaces, OnlyLocalWritableMountsOutsideProcSysAndDevAreSearched) {
  auto on = [](std::string path, std::string type, bool ro = false) {
    return mount_to_search(MountEntry{std::move(path), std::move(type), ro});
  };
  EXPECT_TRUE(on("/", "ext4"));
  EXPECT_TRUE(on("/", "overlay"));
  EXPECT_TRUE(on("/home", "btrfs"));
  EXPECT_TRUE(on("/run", "tmpfs"));
  EXPECT_TRUE(on("/dev/shm", "tmpfs"));
  EXPECT_TRUE(on("/dev/mqueue", "mqueue"));
  EXPECT_FALSE(on("/data", "xfs", true));  // read-only: nobody leaves anything there
  EXPECT_FALSE(on("/dev", "devtmpfs"));
  EXPECT_FALSE(on("/dev", "tmpfs"));  // a container's /dev
  EXPECT_FALSE(on("/dev/pts", "devpts"));
  EXPECT_FALSE(on("/proc", "proc"));
  EXPECT_FALSE(on("/proc/sys/fs/binfmt_misc", "binfmt_misc"));
  EXPECT_FALSE(on("/sys/fs/cgroup", "tmpfs"));
  EXPECT_FALSE(on("/srv/share", "nfs4"));
  EXPECT_FALSE(on("/mnt/win", "cifs"));
  EXPECT_FALSE(on("/home/a/remote", "fuse.sshfs"));
  EXPECT_FALSE(on("/snap/core/1", "squashfs"));
}

// A tree searched as if it were a mount: the folders "the worker" (another uid, this process's
// group) may write into are found, the top-most only; what it cannot search, links and the
// mounts below are not entered.
TEST(SharedPlaces, FindsEveryFolderTheWorkerMayWriteIntoAndNothingElse) {
  std::string tmpl = "/tmp/aw-places-XXXXXX";  // every folder above it searchable by anyone
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  std::string root = tmpl, elsewhere = root + "-elsewhere";
  ASSERT_EQ(::chmod(root.c_str(), 0755), 0);
  for (const char* d :
       {"/open/inner", "/sticky", "/group", "/closed/open", "/deep/er/open", "/readable/only"})
    fs::create_directories(root + d);
  fs::create_directories(elsewhere);
  for (auto [d, mode] : std::vector<std::pair<std::string, mode_t>>{{"/open", 0777},
                                                                    {"/open/inner", 0777},
                                                                    {"/sticky", 01777},
                                                                    {"/group", 0770},
                                                                    {"/closed", 0700},
                                                                    {"/closed/open", 0777},
                                                                    {"/deep", 0755},
                                                                    {"/deep/er", 0711},
                                                                    {"/deep/er/open", 0777},
                                                                    {"/readable", 0755},
                                                                    {"/readable/only", 0755}})
    ASSERT_EQ(::chmod((root + d).c_str(), mode), 0) << d;
  ASSERT_EQ(::chmod(elsewhere.c_str(), 0777), 0);
  fs::create_directory_symlink(elsewhere, root + "/link");
  uid_t worker = ::getuid() + 4242;  // never this process: the mode bits of other or group apply
  gid_t group = ::getgid();
  auto found = find_shared_places(worker, group, {MountEntry{root, "ext4", false}});
  EXPECT_EQ(found.incomplete, "");
  std::vector<std::string> beyond;
  for (const auto& r : found.roots)
    if (std::find(leftover_roots().begin(), leftover_roots().end(), r) == leftover_roots().end())
      beyond.push_back(r);
  // /deep/er is searchable and not listable by the worker: this process (its owner) lists it.
  EXPECT_EQ(beyond, (std::vector<std::string>{root + "/deep/er/open", root + "/group",
                                              root + "/open", root + "/sticky"}));
  // The usual three come first wherever they exist.
  std::vector<std::string> usual;
  for (const auto& r : leftover_roots())
    if (fs::is_directory(fs::symlink_status(r))) usual.push_back(r);
  ASSERT_GE(found.roots.size(), usual.size());
  EXPECT_EQ(std::vector<std::string>(found.roots.begin(), found.roots.begin() + usual.size()),
            usual);
  // A mount no one but its owner can reach is not searched.
  ASSERT_EQ(::chmod(root.c_str(), 0700), 0);
  auto none = find_shared_places(worker, group, {MountEntry{root + "/open", "ext4", false}});
  for (const auto& r : none.roots) EXPECT_NE(r.rfind(root, 0), 0u) << r;
  // The limits cut the search short and say so.
  ASSERT_EQ(::chmod(root.c_str(), 0755), 0);
  SharedPlacesLimits one;
  one.max_places = 1;
  auto cut = find_shared_places(worker, group, {MountEntry{root, "ext4", false}}, one);
  EXPECT_NE(cut.incomplete.find("cut short"), std::string::npos) << cut.incomplete;
  fs::remove_all(root);
  fs::remove_all(elsewhere);
}

TEST(IpcLeftovers, TheWorkersObjectsAreThoseItOwnsOrCreated) {
  const std::string shm =
      "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  "
      "cgid      atime      dtime      ctime                   rss                  swap\n"
      " 723385669          0   644                   100 12183     0      0  1001  1001  1001  "
      "1001          0          0 1796506559                     0                     0\n"
      "        -1         32   600                  4096 12184     0      0     0     0  1001  "
      "1001          0          0 1796506559                     0                     0\n"
      "         0         33   600                  4096 12185     0      0  1002  1002  1002  "
      "1002          0          0 1796506559                     0                     0\n"
      "broken\n";
  auto o = parse_sysvipc(IpcKind::shm, shm, 1001);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].id, 0);
  EXPECT_EQ(describe_ipc(o[0]), "SysV shared memory 0 (key 0x2b1dfd45)");
  // Handed to root by IPC_SET, created by the worker: still the worker's to remove.
  EXPECT_EQ(o[1].id, 32);
  EXPECT_EQ(o[1].uid, 0u);
  EXPECT_EQ(describe_ipc(o[1]), "SysV shared memory 32 (key 0xffffffff)");

  const std::string sem =
      "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n"
      " 594173669          7   644          1  1001  1001  1001  1001          0 1796506559\n";
  auto s = parse_sysvipc(IpcKind::sem, sem, 1001);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(describe_ipc(s[0]), "SysV semaphore set 7 (key 0x236a5ee5)");
  const std::string msg =
      "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      "
      "stime      rtime      ctime\n"
      "-1069134026          3   644           0          0     0     0  1001  1001  1001  1001  "
      "        0          0 1796506559\n";
  auto m = parse_sysvipc(IpcKind::msg, msg, 1001);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(describe_ipc(m[0]), "SysV message queue 3 (key 0xc0464f36)");
  EXPECT_EQ(parse_sysvipc(IpcKind::msg, msg, 1002).size(), 0u);
  // The wrong file's header (no msqid column in shm's): nothing, rather than a wrong id.
  EXPECT_EQ(parse_sysvipc(IpcKind::msg, shm, 1001).size(), 0u);
}

}  // namespace
}  // namespace aw
