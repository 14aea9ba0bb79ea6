// The worker's leftovers (isolation user): what a unit's worker plants in /tmp, /var/tmp and
// /dev/shm is removed when the unit ends, and when a killed awaywork's unit is recovered; a link
// planted to a file of the owner's goes, its target stays; the record names what went.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "../user/user_fixture.h"
#include "isolate/user/leftovers.h"
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
    // Nothing of the worker's anywhere in the three trees (root sees all of them).
    EXPECT_EQ(entries_owned_by(u.worker.uid, u.worker.gid, leftover_roots(), {}),
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
  EXPECT_NE(
      notes.find("worker " + std::string(kWorker) + " left nothing in /tmp, /var/tmp, /dev/shm"),
      std::string::npos)
      << notes;
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
