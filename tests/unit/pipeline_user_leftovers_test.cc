// The worker's leftovers (isolation user): what a unit's worker plants in /tmp, /var/tmp,
// /dev/shm, /run/lock, /dev/mqueue, any other world-writable folder and System V IPC is removed
// when the unit ends, and when a killed awaywork's unit is recovered, so the next unit finds none
// of it; a link planted to a file of the owner's goes, its target stays; the record names what
// went.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "isolate/user/ipc_leftovers.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/shared_places.h"
#include "unit_fixture.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

class Leftovers : public UserPipeline {
 protected:
  // A shell body that plants, as the worker, in all three trees: a folder it then closes to
  // itself (mode 500 over a file), a file, a world-writable sticky folder, a fifo, a name with a
  // newline, a chain of 200 folders, and a link to `target` (a file of the owner's).
  std::string plant(const std::string& target) {
    tag = "aw-plant-" + fs::path(root).filename().string();
    return fmt::format(
        "set -e\nn={0}\n"
        "mkdir -p /tmp/$n/deep/er && echo x > /tmp/$n/deep/er/f && chmod 500 /tmp/$n/deep\n"
        "echo x > /var/tmp/$n.file\n"
        "mkdir /dev/shm/$n && chmod 1777 /dev/shm/$n && echo x > /dev/shm/$n/f\n"
        "mkfifo /tmp/$n.fifo\n"
        "touch \"/tmp/$n.$(printf 'new\\nline')\"\n"
        "d=/tmp/$n.chain; for i in $(seq 200); do d=$d/d; done; mkdir -p $d\n"
        "ln -s {1} /tmp/$n.link\n"
        "echo y > a.txt\n",
        tag, target);
  }
  std::vector<std::string> planted() const {
    return {"/tmp/" + tag,           "/var/tmp/" + tag + ".file",  "/dev/shm/" + tag,
            "/tmp/" + tag + ".fifo", "/tmp/" + tag + ".new\nline", "/tmp/" + tag + ".chain",
            "/tmp/" + tag + ".link"};
  }
  // The owner's file the link points at: it must survive the sweep, content and all.
  std::string owner_file(const Users& u) {
    std::string f = root + "/owner-file";
    std::ofstream(f) << "the owner's\n";
    EXPECT_EQ(sh(fmt::format("chown {}: {} && chmod 600 {}", u.owner, f, f)), 0);
    return f;
  }
  void expect_swept(const Users& u, const std::string& target, const std::string& notes) {
    for (const auto& p : planted()) {
      struct stat st {};
      EXPECT_NE(::lstat(p.c_str(), &st), 0) << p << " is still there";
    }
    EXPECT_EQ(read(target), "the owner's\n");
    struct stat st {};
    ASSERT_EQ(::lstat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, u.owner_uid);
    // Nothing of the worker's anywhere it can write (root sees all of it).
    EXPECT_EQ(entries_owned_by(u.worker.uid, u.worker.gid,
                               shared_places(u.worker.uid, u.worker.gid).roots, {}),
              std::vector<std::string>{});
    // The record names what went, hostile names escaped.
    EXPECT_NE(notes.find("removed, and none remain"), std::string::npos) << notes;
    for (const auto& p : {"/tmp/" + tag + ".link", "/var/tmp/" + tag + ".file", "/dev/shm/" + tag,
                          "/tmp/" + tag + ".new\\\\x0aline"})
      EXPECT_NE(notes.find(p), std::string::npos) << p << " not in " << notes;
  }
  std::string tag;
};

TEST_F(Leftovers, WhatTheWorkerPlantedGoesWithTheUnitAndTheLinkTargetStays) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string target = owner_file(*u);
  configure(agent_script("plant", plant(target)));
  auto r = run_as_owner("plant");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  expect_swept(*u, target, r.record["notes"].dump());
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

TEST_F(Leftovers, AUnitThatLeftNothingSaysSo) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure(agent_script("clean", "echo y > a.txt\n"));
  auto r = run_as_owner("clean");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("worker " + std::string(kWorker) + " left nothing in the "),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find(" world-writable folders (/tmp, /var/tmp, /dev/shm"), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("nor in SysV IPC"), std::string::npos) << notes;
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// Issue 41, item 4: unit 1 (hostile) plants in every place the worker shares with the next unit:
// /run/lock (and /var/lock, the same folder), a world-writable folder no list names, /dev/mqueue
// (a POSIX message queue) and System V shared memory, a semaphore set and a message queue; unit 2
// (benign) looks for all of it, and finds nothing. Without the OS sandbox, which would give each
// phase its own IPC namespace and /run: the sweep must hold without it.
class LeftoversEverywhere : public Leftovers {
 protected:
  void SetUp() override {
    Leftovers::SetUp();
    tag = "aw-plant-" + fs::path(root).filename().string();
    if (::geteuid() != 0) return;  // AW_NEED_USERS skips the test
    // Where a machine has no /run/lock or /dev/mqueue (a bare container), made as systemd would.
    if (!fs::exists("/run/lock")) {
      made_run_lock = sh("mkdir -p /run/lock && chmod 1777 /run/lock") == 0;
      ASSERT_TRUE(made_run_lock);
    }
    std::error_code ec;
    var_lock = fs::equivalent("/var/lock", "/run/lock", ec);  // a link to it, as usual
    if (!mqueue_mounted()) {
      made_mqueue_dir = !fs::exists("/dev/mqueue");
      mounted_mqueue = sh("mkdir -p /dev/mqueue && mount -t mqueue mqueue /dev/mqueue") == 0;
    }
    has_mqueue = mqueue_mounted();
    // A folder opened to everyone that no list of awaywork's could know: the search must find it.
    open_parent = "/var/lib/aw-open-" + fs::path(root).filename().string();
    open_folder = open_parent + "/shared";
    ASSERT_EQ(sh(fmt::format("mkdir -p {0} && chmod 755 {1} && chmod 1777 {0}", open_folder,
                             open_parent)),
              0);
  }
  void TearDown() override {
    if (!open_parent.empty()) fs::remove_all(open_parent);
    if (mounted_mqueue) (void)sh("umount /dev/mqueue");
    if (made_mqueue_dir) (void)sh("rmdir /dev/mqueue");
    if (made_run_lock) (void)sh("rmdir /run/lock");
    Leftovers::TearDown();
  }
  bool mqueue_mounted() {
    for (const auto& m : parse_mountinfo(read("/proc/self/mountinfo")))
      if (m.path == "/dev/mqueue" && m.type == "mqueue") return true;
    return false;
  }
  void configure_unsandboxed(const std::string& agent) {
    write_config(agent, "isolation: user\nworker_user: " + std::string(kWorker) +
                            "\nsandbox: {mode: off}\n");
    ::chmod(config.c_str(), 0644);
  }
  std::string plant_everywhere() const {
    return fmt::format(
        "n={0}\n"
        "echo x > /run/lock/$n\n"
        "{3}"
        "mkdir {1}/$n && echo x > {1}/$n/f\n"
        "{2}"
        "ipcmk -M 4096 -p 0666\nipcmk -S 1 -p 0666\nipcmk -Q -p 0666\n"
        "echo y > a.txt\n",
        tag, open_folder, has_mqueue ? "touch /dev/mqueue/$n\n" : "",
        var_lock ? "echo x > /var/lock/$n.var\n" : "");
  }
  // Unit 2 writes into found.txt, in its clone, every name of unit 1's it can see and every SysV
  // object its uid owns or created (the worker's: unit 1's).
  std::string look() const {
    return fmt::format(
        ": > found.txt\n"
        "for d in /tmp /var/tmp /dev/shm /run/lock /var/lock {1} /dev/mqueue; do\n"
        "  ls -a \"$d\" 2>/dev/null | grep -F {0} | sed \"s|^|$d/|\" >> found.txt || true\n"
        "done\n"
        "for k in shm sem msg; do\n"
        "  awk -v u=\"$(id -u)\" -v k=$k 'NR == 1 {{ for (i = 1; i <= NF; i++) h[$i] = i; next }}\n"
        "    $h[\"uid\"] == u || $h[\"cuid\"] == u {{ print \"sysv \" k \": \" $0 }}' "
        "/proc/sysvipc/$k >> found.txt\n"
        "done\n"
        "echo z > a.txt\n",
        tag, open_folder);
  }
  std::string open_parent, open_folder;
  bool made_run_lock = false, var_lock = false, mounted_mqueue = false, made_mqueue_dir = false,
       has_mqueue = false;
};

TEST_F(LeftoversEverywhere, TheNextUnitFindsNothingOfWhatTheFirstLeftAnywhere) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure_unsandboxed(agent_script("plant-everywhere", plant_everywhere()));
  auto first = run_as_owner("plant");
  ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
  ASSERT_EQ(first.record["state"], "done") << first.out;
  std::string notes = first.record["notes"].dump();
  EXPECT_NE(notes.find("removed, and none remain"), std::string::npos) << notes;
  std::vector<std::string> named = {"/run/lock/" + tag, open_folder + "/" + tag,
                                    "SysV shared memory ", "SysV semaphore set ",
                                    "SysV message queue "};
  if (var_lock) named.push_back("/run/lock/" + tag + ".var");
  if (has_mqueue) named.push_back("/dev/mqueue/" + tag);
  for (const auto& n : named) EXPECT_NE(notes.find(n), std::string::npos) << n << " in " << notes;
  // As root, who sees everything: nothing of the worker's in any of those places nor in IPC.
  for (const auto& p : {"/run/lock/" + tag, open_folder + "/" + tag, "/dev/mqueue/" + tag})
    EXPECT_FALSE(fs::exists(fs::symlink_status(p))) << p;
  EXPECT_EQ(ipc_objects_of(u->worker.uid).size(), 0u);
  auto places = shared_places(u->worker.uid, u->worker.gid).roots;
  EXPECT_NE(std::find(places.begin(), places.end(), open_folder), places.end());
  EXPECT_NE(std::find(places.begin(), places.end(), "/run/lock"), places.end());
  EXPECT_EQ(entries_owned_by(u->worker.uid, u->worker.gid, places, {}), std::vector<std::string>{});

  configure_unsandboxed(agent_script("look", look()));
  auto second = run_as_owner("look");
  ASSERT_EQ(second.exit_code, 0) << second.err << second.out;
  ASSERT_EQ(second.record["state"], "done") << second.out;
  std::string clone2 = locations(second)["clone"];
  EXPECT_TRUE(exists(clone2 + "/found.txt"));
  EXPECT_EQ(read(clone2 + "/found.txt"), "");
  for (const auto& r : {first, second})
    fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// awaywork killed outright while its worker has planted: the next start kills the worker's
// processes, takes the folders back, and sweeps what the worker left, noting it on the record.
TEST_F(Leftovers, CrashRecoverySweepsWhatTheDeadUnitsWorkerLeft) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string target = owner_file(*u);
  configure(agent_script("plant-hang", plant(target) + "sleep 918.77\n"));
  pid_t pid = start_as_owner({"run", "--repo", "src", "--prompt", "hang"});
  for (int i = 0; i < 600 && !process_alive_with("918.77"); ++i) ::usleep(20 * 1000);
  ASSERT_TRUE(process_alive_with("918.77"));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ::waitpid(pid, nullptr, 0);
  struct stat st {};
  ASSERT_EQ(::lstat(("/tmp/" + tag + ".link").c_str(), &st), 0);  // planted before the crash

  auto r = owner_awaywork({"units", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.record.is_array() && r.record.size() == 1u) << r.out;
  auto shown = owner_awaywork({"show", r.record[0]["id"], "--json"});
  EXPECT_EQ(shown.record["state"], "interrupted") << shown.out;
  expect_swept(*u, target, shown.record["notes"].dump());
  for (const auto& e : fs::directory_iterator(root + "/state/runs"))
    if (auto l = nlohmann::json::parse(read(e.path().string() + "/isolation.json"), nullptr, false);
        l.is_object())
      for (const auto& f : l["folders"]) fs::remove_all(f["path"].get<std::string>());
}

}  // namespace
}  // namespace aw::test
