// The per-phase handoff with real users: the folders go to the worker and come back closed; a
// swapped folder, an outside hardlink or a surviving process loses the unit.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/locations.h"
#include "isolate/user/probes.h"
#include "isolate/user/worker_lock.h"
#include "user_fixture.h"

namespace aw {
namespace {

using test::run_as;

// Issue 28 item 4: the worker lock knows whether this process holds it (a unit's own plugin calls
// run under its lock), refuses a unit holder at once and waits for a plugin call's.
TEST(WorkerLock, ThisProcesssHoldIsKnownUntilReleased) {
  char tmpl[] = "/tmp/aw-worker-lock-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  EXPECT_FALSE(worker_locked_here(dir, "w"));
  auto lock = lock_worker(dir, "w");
  ASSERT_TRUE(lock.has_value()) << lock.error().message;
  EXPECT_TRUE(worker_locked_here(dir, "w"));
  EXPECT_FALSE(worker_locked_here(dir, "other"));
  unlock_worker(*lock);
  EXPECT_FALSE(worker_locked_here(dir, "w"));
  (void)remove_tree(dir);
}

// A child holds the lock as holder for hold_ms (then exits, which releases it); what lock_worker
// in this process says, and how long it took.
std::pair<std::string, std::chrono::milliseconds> lock_while_held(const std::string& dir,
                                                                  const std::string& holder,
                                                                  int hold_ms) {
  int ready[2];
  if (::pipe(ready) != 0) return {"pipe failed", {}};
  pid_t child = ::fork();
  if (child == 0) {
    ::close(ready[0]);
    auto lock = lock_worker(dir, "w", holder);
    char c = lock ? 'L' : 'E';
    (void)!::write(ready[1], &c, 1);
    ::usleep(static_cast<useconds_t>(hold_ms) * 1000);
    ::_exit(0);
  }
  ::close(ready[1]);
  char c = 0;
  std::string said;
  auto start = std::chrono::steady_clock::now();
  if (::read(ready[0], &c, 1) != 1 || c != 'L') {
    said = "the child did not take the lock";
  } else {
    start = std::chrono::steady_clock::now();
    auto lock = lock_worker(dir, "w");
    said = lock ? "locked" : lock.error().message;
    if (lock) unlock_worker(*lock);
  }
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  return {said, took};
}

TEST(WorkerLock, AUnitHoldingItIsRefusedAtOnceAPluginCallIsWaitedFor) {
  char tmpl[] = "/tmp/aw-worker-lock-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  auto [unit_said, unit_took] = lock_while_held(dir, "", 3000);
  EXPECT_NE(unit_said.find("another unit is running as worker w"), std::string::npos) << unit_said;
  EXPECT_LT(unit_took, std::chrono::milliseconds(2000));
  auto [call_said, call_took] = lock_while_held(dir, std::string(kPluginHolder) + "tracker", 800);
  EXPECT_EQ(call_said, "locked");
  EXPECT_GE(call_took, std::chrono::milliseconds(500));
  (void)remove_tree(dir);
}

// Issue 38, item 2: isolation.json (read again by crash recovery) with a field of the wrong type
// is an error naming it, not a type_error: "isolation" was read outside the old try/catch, so a
// number there ended awaywork. Device and inode numbers past INT64_MAX are read as written.
TEST(Locations, AWronglyTypedFieldIsAnErrorNamingIt) {
  char tmpl[] = "/tmp/aw-locations-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string file = std::string(tmpl) + "/isolation.json";
  auto read = [&](const std::string& text) {
    EXPECT_TRUE(write_file(file, text));
    auto l = read_locations(file);
    return l ? std::string("(no error)") : l.error().message;
  };
  EXPECT_EQ(read(R"({"isolation": 5})"), file + ": not the locations of a user unit");
  EXPECT_EQ(read(R"({"isolation": "user", "home_removed": "no"})"),
            file + R"(: field "home_removed": expected a boolean, got string)");
  EXPECT_EQ(read(R"({"isolation": "user", "folders": [{"path": "/x", "dev": "1", "ino": 2}]})"),
            file + R"(: field "folders[0].dev": expected an integer, got string)");
  EXPECT_EQ(read(R"({"isolation": "user", "folders": [{"path": "/x", "dev": 1, "ino": -2}]})"),
            file + R"(: field "folders[0].ino": -2 is out of range [0, 18446744073709551615])");
  UserUnitLocations l{"w", "/c", "/h", true, {{"/x", DirId{1, static_cast<ino_t>(UINT64_MAX)}}}};
  ASSERT_TRUE(write_locations(file, l));
  auto back = read_locations(file);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->folders.size(), 1u);
  EXPECT_EQ(back->folders[0].id.ino, static_cast<ino_t>(UINT64_MAX));
  EXPECT_TRUE(back->home_removed);
  std::filesystem::remove_all(tmpl);
}

struct Stat {
  uid_t uid = static_cast<uid_t>(-1);
  mode_t mode = 0;
  ino_t ino = 0;
};
Stat lstat_of(const std::string& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return {};
  return {st.st_uid, st.st_mode & 07777, st.st_ino};
}

// A fake clone (with .git/config) and a HOME, made by the owner.
Handoff make_unit(const test::Users& u) {
  Handoff h{u.worker, u.owner_uid, u.owner_gid, {}};
  std::string paths = run_as(u.owner_uid, u.owner_gid, [] {
    auto clone = make_unit_folder();
    auto home = make_unit_folder();
    if (!clone || !home) return std::string();
    make_dirs(clone->path + "/.git/hooks");
    make_dirs(clone->path + "/src/deep");
    write_file(clone->path + "/.git/config", "[core]\n\tbare = false\n", 0644);
    write_file(clone->path + "/src/deep/a.txt", "a\n", 0644);
    write_file(clone->path + "/run.sh", "#!/bin/sh\n", 0755);
    return clone->path + "\n" + home->path;
  });
  auto nl = paths.find('\n');
  if (nl == std::string::npos) return h;
  for (const auto& p : {paths.substr(0, nl), paths.substr(nl + 1)}) {
    auto id = dir_id(p);
    if (id) h.folders.push_back({p, *id});
  }
  return h;
}

void cleanup(const Handoff& h) {
  for (const auto& f : h.folders) test::sh("rm -rf " + f.path + " " + f.path + ".moved");
}

// Status text of fn run as the owner ("" = ok).
std::string as_owner(const test::Users& u, const std::function<Status()>& fn) {
  return run_as(u.owner_uid, u.owner_gid, [&] {
    auto s = fn();
    return s ? std::string() : s.error().message;
  });
}

std::string as_worker(const test::Users& u, const std::string& script) {
  return run_as(u.worker.uid, u.worker.gid, [&] {
    return std::to_string(test::sh("/bin/sh -c '" + script + "' >/dev/null 2>&1"));
  });
}

TEST(UserHandoff, RoundTripHandsEverythingOverAndBackClosed) {
  AW_NEED_USERS(u);
  Handoff h = make_unit(*u);
  ASSERT_EQ(h.folders.size(), 2u);
  const std::string clone = h.folders[0].path, home = h.folders[1].path;
  EXPECT_EQ(lstat_of(clone).mode, 0700u);
  ASSERT_EQ(as_owner(*u, [&] { return before_phase(h); }), "");
  EXPECT_EQ(lstat_of(clone).uid, u->worker.uid);
  EXPECT_EQ(lstat_of(clone + "/src/deep/a.txt").uid, u->worker.uid);
  EXPECT_EQ(lstat_of(home).uid, u->worker.uid);
  // The phase: the worker writes and opens everything to the world.
  EXPECT_EQ(
      as_worker(*u, fmt::format("echo x > {0}/new.txt && mkdir {1}/.cache && "
                                "chmod 777 {0} {0}/.git {1} {1}/.cache && chmod 666 {0}/new.txt "
                                "&& chmod 4777 {0}/run.sh",
                                clone, home)),
      "0");
  ASSERT_EQ(as_owner(*u, [&] { return after_phase(h); }), "");
  for (const auto& p : {clone, home}) {
    EXPECT_EQ(lstat_of(p).uid, u->owner_uid) << p;
    EXPECT_EQ(lstat_of(p).mode, 0711u) << p;
  }
  EXPECT_EQ(lstat_of(clone + "/.git").mode, 0700u);
  EXPECT_EQ(lstat_of(clone + "/.git/config").mode, 0600u);
  EXPECT_EQ(lstat_of(clone + "/new.txt").uid, u->owner_uid);
  EXPECT_EQ(lstat_of(clone + "/new.txt").mode, 0600u);
  EXPECT_EQ(lstat_of(clone + "/run.sh").mode, 0700u) << "setuid dropped, u+x kept";
  EXPECT_EQ(lstat_of(home + "/.cache").mode, 0700u);
  // A second phase works the same way.
  ASSERT_EQ(as_owner(*u, [&] { return before_phase(h); }), "");
  ASSERT_EQ(as_owner(*u, [&] { return after_phase(h); }), "");
  EXPECT_EQ(as_owner(*u, [&] { return remove_unit_folder(h.folders[1]); }), "");
  EXPECT_NE(::access(home.c_str(), F_OK), 0) << "the HOME is removed with the unit";
  cleanup(h);
}

// The worker moves its clone (or HOME) away and leaves a link to another repository of the
// owner's: the unit is lost and that repository is untouched.
void swap_for_link(const test::Users& u, int which) {
  Handoff h = make_unit(u);
  ASSERT_EQ(h.folders.size(), 2u);
  std::string other = u.owner_home + "/other-repo";
  ASSERT_EQ(
      test::sh(fmt::format("rm -rf {0} && mkdir -p {0}/.git && printf '[core]\\n' > "
                           "{0}/.git/config && chown -R {1}:{2} {0} && chmod 644 {0}/.git/config",
                           other, u.owner_uid, u.owner_gid)),
      0);
  Stat before = lstat_of(other + "/.git/config");
  std::string target = h.folders[static_cast<size_t>(which)].path;
  ASSERT_EQ(as_owner(u, [&] { return before_phase(h); }), "");
  EXPECT_EQ(as_worker(u, fmt::format("mv {0} {0}.moved && ln -s {1} {0}", target, other)), "0");
  std::string err = as_owner(u, [&] { return after_phase(h); });
  EXPECT_NE(err.find("unit lost"), std::string::npos) << err;
  EXPECT_NE(err.find("left for inspection"), std::string::npos) << err;
  Stat after = lstat_of(other + "/.git/config");
  EXPECT_EQ(after.uid, before.uid);
  EXPECT_EQ(after.mode, before.mode);
  EXPECT_EQ(after.ino, before.ino);
  EXPECT_EQ(read_file(other + "/.git/config").value_or(""), "[core]\n");
  EXPECT_EQ(lstat_of(other).uid, u.owner_uid);
  cleanup(h);
  test::sh("rm -rf " + other);
}

TEST(UserHandoff, CloneSwappedForLinkToOwnersRepoLosesUnit) {
  AW_NEED_USERS(u);
  swap_for_link(*u, 0);
}

TEST(UserHandoff, HomeSwappedForLinkToOwnersRepoLosesUnit) {
  AW_NEED_USERS(u);
  swap_for_link(*u, 1);
}

TEST(UserHandoff, CloneSwappedForAnotherDirectoryLosesUnit) {
  AW_NEED_USERS(u);
  Handoff h = make_unit(*u);
  ASSERT_EQ(h.folders.size(), 2u);
  std::string clone = h.folders[0].path;
  ASSERT_EQ(as_owner(*u, [&] { return before_phase(h); }), "");
  EXPECT_EQ(as_worker(*u, fmt::format("mv {0} {0}.moved && mkdir {0}", clone)), "0");
  std::string err = as_owner(*u, [&] { return after_phase(h); });
  EXPECT_NE(err.find("was replaced by another directory"), std::string::npos) << err;
  cleanup(h);
}

// protected_hardlinks stops the worker from linking an owner's file into its clone; and should
// that protection be off, the walk after the phase sees the outside link and loses the unit
// before the next chown could hand that file to the worker.
// HostWide*: turns the machine's protected_hardlinks off for a moment, so ctest runs it alone.
TEST(HostWideUserHandoff, HardlinkToOwnersFileNeverGetsChowned) {
  AW_NEED_USERS(u);
  Handoff h = make_unit(*u);
  ASSERT_EQ(h.folders.size(), 2u);
  std::string clone = h.folders[0].path;
  std::string secret = "/tmp/aw-user-owner-file";
  ASSERT_EQ(test::sh(fmt::format("rm -f {0} && echo s > {0} && chown {1}:{2} {0} && chmod 644 {0}",
                                 secret, u->owner_uid, u->owner_gid)),
            0);
  ASSERT_EQ(as_owner(*u, [&] { return before_phase(h); }), "");
  EXPECT_NE(as_worker(*u, fmt::format("ln {} {}/stolen", secret, clone)), "0")
      << "protected_hardlinks=1 refuses the link";
  {
    test::SysctlScope off("protected_hardlinks", 0);
    EXPECT_EQ(as_worker(*u, fmt::format("ln {} {}/stolen", secret, clone)), "0");
  }
  std::string err = as_owner(*u, [&] { return after_phase(h); });
  EXPECT_NE(err.find("linked from outside"), std::string::npos) << err;
  EXPECT_EQ(lstat_of(secret).uid, u->owner_uid);
  EXPECT_EQ(lstat_of(secret).mode, 0644u) << "the outside file is not chmodded either";
  cleanup(h);
  ::unlink(secret.c_str());
}

TEST(UserHandoff, HardlinksInsideTheUnitAreFine) {
  AW_NEED_USERS(u);
  Handoff h = make_unit(*u);
  ASSERT_EQ(h.folders.size(), 2u);
  ASSERT_EQ(as_owner(*u, [&] { return before_phase(h); }), "");
  // pnpm-style: the HOME's store linked into the clone.
  EXPECT_EQ(as_worker(*u, fmt::format("echo p > {1}/store && ln {1}/store {0}/linked",
                                      h.folders[0].path, h.folders[1].path)),
            "0");
  EXPECT_EQ(as_owner(*u, [&] { return after_phase(h); }), "");
  cleanup(h);
}

TEST(UserHandoff, DetachedWorkerProcessesAreKilledAndProvedGone) {
  AW_NEED_USERS(u);
  std::string pid_text =
      run_as(u->worker.uid, u->worker.gid, [] { return std::to_string(start_detached_sleep()); });
  pid_t pid = std::atoi(pid_text.c_str());
  ASSERT_GT(pid, 0);
  auto alive = worker_processes(u->worker.uid);
  ASSERT_TRUE(alive.has_value());
  EXPECT_NE(std::find(alive->begin(), alive->end(), pid), alive->end());
  EXPECT_TRUE(check_left_behind(pid).leak);
  EXPECT_EQ(as_owner(*u, [&] { return kill_worker_processes(u->worker); }), "");
  EXPECT_FALSE(check_left_behind(pid).leak);
  auto left = worker_processes(u->worker.uid);
  ASSERT_TRUE(left.has_value());
  EXPECT_TRUE(left->empty());
}

TEST(UserHandoff, RefusesPathsTheSudoersRulesDoNotMatch) {
  EXPECT_TRUE(is_unit_path("/tmp/awaywork-aB3xY9"));
  EXPECT_FALSE(is_unit_path("/tmp/awaywork-aB3xY"));
  EXPECT_FALSE(is_unit_path("/tmp/awaywork-aB3xY9/x"));
  EXPECT_FALSE(is_unit_path("/tmp/awaywork-a.3xY9"));
  EXPECT_FALSE(is_unit_path("/var/tmp/awaywork-aB3xY9"));
  WorkerUser w{"aw-nobody", 12345, 12345, "", "", "", {}};
  auto s = hand_to_worker({"/home/x/repo", {}}, w);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("not a unit folder"), std::string::npos);
}

}  // namespace
}  // namespace aw
