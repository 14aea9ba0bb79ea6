// The pipeline under isolation `user`, end to end: real owner and worker users, the real sudoers
// lines (tests/isolate/user's fixture), and the real awaywork binary run AS THE OWNER (never root).
// Needs root to set that up; skips otherwise (FAIL under CI=true).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "../isolate/user/user_fixture.h"
#include "isolate/user/handoff.h"
#include "isolate/user/locations.h"
#include "proc/capture.h"
#include "unit_fixture.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

TEST_F(UserPipeline, AgentRunsAsTheWorkerAndTheBranchIsPublished) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure(agent_script("who", "id -u > whoami.txt\necho y > a.txt"));
  auto r = run_as_owner("who are you");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_EQ(r.record["isolation"], "user");
  // preferred, and this owner has no cgroup for the sandbox's limits: unsandboxed, saying why.
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("unsandboxed: ", 0), 0u) << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":whoami.txt"), std::to_string(u->worker.uid) + "\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":a.txt"), "y\n");
  // HOME went with the unit; the clone stays for inspection, the owner's and closed.
  auto where = locations(r);
  ASSERT_TRUE(where.is_object());
  std::string clone = where["clone"], home = where["home"];
  EXPECT_FALSE(exists(home));
  EXPECT_EQ(where["home_removed"], true);
  std::string folder = fs::path(clone).parent_path();
  EXPECT_EQ(folder.rfind("/tmp/awaywork-", 0), 0u) << folder;
  EXPECT_EQ(mode_of(folder), 0711u);
  EXPECT_EQ(mode_of(clone), 0700u);
  struct stat st {};
  ASSERT_EQ(::lstat(clone.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, u->owner_uid);
  // The shadow git dir never left the owner's run folder.
  std::string shadow = r.record["run_dir"].get<std::string>() + "/git";
  if (exists(shadow)) {
    ASSERT_EQ(::lstat(shadow.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, u->owner_uid);
  }
  fs::remove_all(folder);
}

TEST_F(UserPipeline, CloneMovedAwayForALinkToAnotherRepositoryLosesTheUnit) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string victim = root + "/victim";
  ASSERT_EQ(
      sh(fmt::format("mkdir -m 700 {1} && chown {0}: {1} && runuser -u {0} -- git clone -q {2} {1}",
                     u->owner, victim, src)),
      0);
  std::string victim_config = read(victim + "/.git/config");
  configure(
      agent_script("swap", "echo y > a.txt\ncd ..\nmv work work.moved\nln -s " + victim + " work"));
  auto r = run_as_owner("swap the clone");
  EXPECT_EQ(r.record["state"], "lost") << r.out << r.err;
  EXPECT_NE(r.record.value("reason", "").find("lost"), std::string::npos) << r.out;
  EXPECT_EQ(read(victim + "/.git/config"), victim_config);
  EXPECT_EQ(owner_git(src, "branch --list 'awaywork/*'"), "");
  EXPECT_EQ(owner_git(victim, "branch --list 'awaywork/*'"), "");
  // Lost: both folders stay for inspection, taken back by the owner.
  auto where = locations(r);
  ASSERT_TRUE(where.is_object());
  std::string home = where["home"];
  EXPECT_TRUE(exists(home));
  struct stat st {};
  ASSERT_EQ(::lstat(home.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, u->owner_uid);
  fs::remove_all(fs::path(where["clone"].get<std::string>()).parent_path());
  fs::remove_all(home);
}

// The agent opens everything; a check phase (the worker again) reports the modes it finds.
TEST_F(UserPipeline, PermissionsOpenedByTheWorkerAreClosedAfterThePhase) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string check = agent_script("modes", "stat -c %a \"$HOME\" . .git > modes.txt");
  configure(agent_script("open", "chmod 777 . .git \"$HOME\" .git/config\necho y > a.txt"),
            "    checks:\n      - [" + check + "]\n");
  auto r = run_as_owner("open everything");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":modes.txt"), "711\n700\n700\n");
  std::string clone = locations(r)["clone"];
  EXPECT_EQ(mode_of(clone), 0700u);
  EXPECT_EQ(mode_of(clone + "/.git"), 0700u);
  fs::remove_all(fs::path(clone).parent_path());
}

// Rounds as the worker: what round 1 leaves in the CLIs' folders of HOME (home_reset.h) is gone
// when round 2 starts, put back by the owner's side between the handoffs.
TEST_F(UserPipeline, RoundOnesFilesInTheClisHomeFoldersAreGoneInRoundTwo) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string check = agent_script("done", "test -f done.txt");
  configure(agent_script("rounds",
                         "if [ ! -e \"$AWAYWORK_OUTPUTS/round1\" ]; then\n"
                         "  touch \"$AWAYWORK_OUTPUTS/round1\"\n"
                         "  mkdir -p \"$HOME/.claude\" \"$HOME/.config/opencode\"\n"
                         "  echo 'ROUND ONE SAYS' > \"$HOME/.claude/CLAUDE.md\"\n"
                         "  echo 'ROUND ONE SAYS' > \"$HOME/.config/opencode/AGENTS.md\"\n"
                         "  exit 0\n"
                         "fi\n"
                         "cat \"$HOME/.claude/CLAUDE.md\" \"$HOME/.config/opencode/AGENTS.md\" "
                         "> seen.txt 2>/dev/null || true\n"
                         "id -u > done.txt\n"),
            "    checks:\n      - [" + check + "]\n    loop: {rounds: 2}\n");
  auto r = run_as_owner("two rounds");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":done.txt"), std::to_string(u->worker.uid) + "\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":seen.txt"), "");
  EXPECT_NE(r.record["notes"].dump().find("~/.claude put back"), std::string::npos)
      << r.record["notes"].dump();
  fs::remove_all(fs::path(std::string(locations(r)["clone"])).parent_path());
}

// HostWide*: turns the machine's protected_symlinks off for a moment, so ctest runs it alone.
using HostWideUserPipeline = UserPipeline;

TEST_F(HostWideUserPipeline, RunRefusesWhileProtectedSymlinksIsOff) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string marker = root + "/ran";
  configure(agent_script("never", "touch " + marker));
  RunOutput r;
  {
    SysctlScope off("protected_symlinks", 0);
    r = run_as_owner("must not run");
  }
  EXPECT_NE(r.exit_code, 0);
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("fs.protected_symlinks"), std::string::npos) << all;
  EXPECT_NE(all.find("sysctl -w fs.protected_symlinks=1"), std::string::npos) << all;
  EXPECT_FALSE(exists(marker));
}

TEST_F(UserPipeline, DetachedSleepOfTheWorkerIsKilledAndTheRecordSaysSo) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure(agent_script("daemon", R"(setsid sleep 713.77 </dev/null >/dev/null 2>&1 &
( setsid sh -c 'sleep 714.77 & exit 0' </dev/null >/dev/null 2>&1 & )
until pgrep -f 'sleep 713[.]77' >/dev/null && pgrep -f 'sleep 714[.]77' >/dev/null; do sleep 0.05; done
echo y > a.txt)"));
  auto r = run_as_owner("leave a daemon");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_FALSE(process_alive_with("713.77"));
  EXPECT_FALSE(process_alive_with("714.77"));
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("process(es) of worker " + std::string(kWorker)), std::string::npos)
      << notes;
  EXPECT_NE(notes.find("sleep"), std::string::npos) << notes;
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

TEST_F(UserPipeline, TheOwnersEnvironmentCanaryIsNotVisibleToTheWorker) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  // Its own environment, and whatever /proc shows of the owner's processes (awaywork's own).
  configure(agent_script("env",
                         "env > env.txt\n"
                         "for p in $(pgrep -u " +
                             std::string(kOwner) +
                             "); do "
                             "cat /proc/$p/environ 2>/dev/null || true; done | tr '\\0' '\\n' "
                             "> proc.txt\necho end >> proc.txt\necho y > a.txt"));
  auto r = run_as_owner("dump env", {"AW_TEST_CANARY=canary-value-6621"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string branch = r.record["branch"];
  std::string env = owner_git(src, "show " + branch + ":env.txt");
  EXPECT_NE(env.find("USER=" + std::string(kWorker)), std::string::npos) << env;
  EXPECT_EQ(env.find("canary-value-6621"), std::string::npos) << env;
  EXPECT_EQ(owner_git(src, "show " + branch + ":proc.txt").find("canary-value-6621"),
            std::string::npos);
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// On timeout the keeper's SIGTERM reaches sudo, which passes it to the command; one that ignores
// it is killed by the warden as the worker, before the keeper's SIGKILL could orphan it.
TEST_F(UserPipeline, TimedOutPhaseThatIgnoresSigtermEndsWithNothingLeft) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure(agent_script("stubborn", "trap '' TERM\nsleep 815.77 &\nwait || true\nwait"));
  auto r = run_as_owner("never ends", {}, {"--unit-seconds", "2"});
  EXPECT_EQ(r.record["state"], "timed_out") << r.out << r.err;
  EXPECT_FALSE(process_alive_with("815.77"));
  EXPECT_FALSE(process_alive_with("/agents/stubborn"));
  auto where = locations(r);
  if (where.is_object()) fs::remove_all(fs::path(where["clone"].get<std::string>()).parent_path());
}

// awaywork killed outright in the middle of a phase: its keeper dies with it, but what runs as
// the worker does not, and the unit's folders are the worker's. The next start (here `awaywork
// units`) kills the worker's processes, takes the folders back (the owner's, mode 700, left for
// inspection) and marks the record interrupted, saying what it did.
TEST_F(UserPipeline, FoldersOfAKilledAwayworkAreTakenBackAtTheNextStart) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  configure(agent_script("hang", "echo y > a.txt\nsleep 917.77\n"));
  pid_t pid = start_as_owner({"run", "--repo", "src", "--prompt", "hang"});
  for (int i = 0; i < 600 && !process_alive_with("917.77"); ++i) ::usleep(20 * 1000);
  ASSERT_TRUE(process_alive_with("917.77"));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ::waitpid(pid, nullptr, 0);
  UserUnitLocations where;
  for (const auto& e : fs::directory_iterator(root + "/state/runs"))
    if (auto l = read_locations(e.path().string() + "/isolation.json")) where = *l;
  ASSERT_EQ(where.folders.size(), 2u);
  struct stat st {};
  for (const auto& f : where.folders) {  // the worker's while the phase runs
    ASSERT_EQ(::lstat(f.path.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, u->worker.uid) << f.path;
  }
  EXPECT_TRUE(process_alive_with("917.77"));  // outlived its awaywork

  auto r = owner_awaywork({"units", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(process_alive_with("917.77"));
  auto left = worker_processes(u->worker.uid);
  ASSERT_TRUE(left) << left.error().message;
  EXPECT_TRUE(left->empty()) << left->size() << " process(es) of the worker left";
  for (const auto& f : where.folders) {
    ASSERT_EQ(::lstat(f.path.c_str(), &st), 0) << f.path;
    EXPECT_EQ(st.st_uid, u->owner_uid) << f.path;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << f.path;
  }
  struct stat clone {};
  ASSERT_EQ(::lstat(where.clone.c_str(), &clone), 0);
  EXPECT_EQ(clone.st_uid, u->owner_uid);  // recursively
  ASSERT_TRUE(r.record.is_array()) << r.out;
  ASSERT_EQ(r.record.size(), 1u) << r.out;
  std::string id = r.record[0]["id"];
  auto shown = owner_awaywork({"show", id, "--json"});
  EXPECT_EQ(shown.record["state"], "interrupted") << shown.out;
  std::string notes = shown.record["notes"].dump();
  EXPECT_NE(notes.find("took back " + where.folders[0].path), std::string::npos) << notes;
  for (const auto& f : where.folders) fs::remove_all(f.path);
}

// User + sandbox: the worker builds the OS sandbox itself after sudo (its own user namespace),
// so under `required` the phases run as the worker AND sandboxed: no network but loopback, a
// private /tmp (the test's folders there are gone), the config file hidden, the clone writable.
TEST_F(UserPipeline, SandboxRequiredRunsTheWorkerInsideTheSandbox) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string body = fmt::format(
      "id -u > whoami.txt\n"
      "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' > nets.txt\n"
      "ls {0} > root.txt 2>&1 || echo absent > root.txt\n"
      "cat {1} > config.txt 2>&1 || true\n"
      "echo y > a.txt",
      root + "/src", config);
  write_config(agent_script("boxed", body),
               "isolation: user\nworker_user: " + std::string(kWorker) +
                   "\nsandbox: {mode: required, limits: off}\n");
  ::chmod(config.c_str(), 0644);
  auto r = run_as_owner("in the box");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u)
      << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":whoami.txt"), std::to_string(u->worker.uid) + "\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":nets.txt"), "lo\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":root.txt").find("a.txt"), std::string::npos);
  std::string seen = owner_git(src, "show " + branch + ":config.txt");
  EXPECT_EQ(seen.find("worker_user"), std::string::npos) << seen;  // hidden
  EXPECT_EQ(owner_git(src, "show " + branch + ":a.txt"), "y\n");
  // Nothing of the sandbox's is left: the owner's helper folder went with the unit.
  EXPECT_EQ(sh("ls -d /tmp/awaywork-helper-* >/dev/null 2>&1"), 2);
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// The end of a sandboxed worker phase: SIGTERM goes keeper -> warden's group -> sudo -> the helper
// -> the sandbox's init; a command that ignores it is killed with everything of the worker's.
TEST_F(UserPipeline, SandboxedTimedOutPhaseEndsWithNothingLeft) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  write_config(agent_script("stubborn", "trap '' TERM\nsleep 816.77 &\nwait || true\nwait"),
               "isolation: user\nworker_user: " + std::string(kWorker) +
                   "\nsandbox: {mode: required, limits: off}\n");
  ::chmod(config.c_str(), 0644);
  auto r = run_as_owner("never ends", {}, {"--unit-seconds", "2"});
  EXPECT_EQ(r.record["state"], "timed_out") << r.out << r.err;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u)
      << r.out;
  EXPECT_FALSE(process_alive_with("816.77"));
  EXPECT_FALSE(process_alive_with("__sandbox-exec"));
  auto left = worker_processes(u->worker.uid);
  ASSERT_TRUE(left) << left.error().message;
  EXPECT_TRUE(left->empty());
  auto where = locations(r);
  if (where.is_object()) fs::remove_all(fs::path(where["clone"].get<std::string>()).parent_path());
}

// network: allowlist under isolation user: the worker's sandbox reaches awaywork's egress proxy
// through a socket opened to the worker alone (an ACL entry, as the inference proxy's is), so
// `required` runs the unit: a host not listed gets the proxy's 403, a direct connection goes
// nowhere, and the proxy logs the attempt.
TEST_F(UserPipeline, SandboxAllowlistUnderRequiredRunsThroughTheEgressProxy) {
  AW_NEED_USERS(u);
  // GET through HTTP_PROXY with bash's /dev/tcp; the status line.
  std::string get =
      "p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:} || exit 9\n"
      "printf 'GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' "
      "\"$1\" \"$1\" >&3\n"
      "head -n1 <&3 | tr -d '\\r'\n";
  world(*u, {{"a.txt", "x\n"}, {"get.sh", get}});
  write_config(agent_script("fetch",
                            "echo \"$HTTP_PROXY\" > proxy.txt\n"
                            "bash get.sh denied.example > denied.txt 2>&1 || true\n"
                            "bash -c '(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo reached "
                            "|| echo refused' > direct.txt\n"
                            "echo y > a.txt\n"),
               "isolation: user\nworker_user: " + std::string(kWorker) +
                   "\nsandbox: {mode: required, limits: off, network: allowlist, allow: "
                   "[example.com]}\n");
  ::chmod(config.c_str(), 0644);
  auto r = run_as_owner("fetch through the proxy");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["sandbox"],
            "sandboxed: network allowlist (1 allowed host(s) through the egress proxy)")
      << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(owner_git(src, "show " + branch + ":proxy.txt"), "http://127.0.0.1:3128\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":denied.txt").rfind("HTTP/1.1 403", 0), 0u)
      << owner_git(src, "show " + branch + ":denied.txt");
  EXPECT_EQ(owner_git(src, "show " + branch + ":direct.txt"), "refused\n");
  EXPECT_NE(read(r.record["run_dir"].get<std::string>() + "/egress.log").find("denied.example"),
            std::string::npos);
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// An injected secret under isolation user (issue 27): the unit's CA bundle is written in the
// owner's run folder (0700), which the worker cannot enter, and the worker builds its own
// sandbox; the bundle reaches the worker's phases at the path their SSL_CERT_FILE names through
// a copy in the helper folder. Before, the phase could not read it.
TEST_F(UserPipeline, SandboxedWorkerReadsTheUnitsCaBundle) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  use_test_secret_store();
  store_secret("NPM_TOKEN", "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake4242");
  ASSERT_EQ(sh(fmt::format("chown -R {0}: {1}/xdg && chmod 700 {1}/xdg", u->owner, root)), 0);
  write_config(
      agent_script("trust",
                   "echo \"$SSL_CERT_FILE\" > file.txt\n"
                   "if grep -q 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\"; then echo readable; "
                   "else echo unreadable; fi > trust.txt 2>&1\n"
                   "echo y > a.txt\n"),
      "isolation: user\nworker_user: " + std::string(kWorker) +
          "\nsandbox: {mode: required, limits: off, network: allowlist, allow: "
          "[npm.example.test]}\n"
          "secrets:\n  NPM_TOKEN:\n    inject: [{host: npm.example.test}]\n");
  ::chmod(config.c_str(), 0644);
  auto r = run_as_owner("trust the unit's CA",
                        {"XDG_CONFIG_HOME=" + root + "/xdg", "AWAYWORK_SECRET_BACKEND=file"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string run_dir = r.record["run_dir"], branch = r.record["branch"];
  EXPECT_EQ(mode_of(run_dir), 0700u) << "the run folder stays the owner's alone";
  EXPECT_EQ(owner_git(src, "show " + branch + ":file.txt"), run_dir + "/ca-bundle.pem\n");
  EXPECT_EQ(owner_git(src, "show " + branch + ":trust.txt"), "readable\n");
  fs::remove_all(fs::path(locations(r)["clone"].get<std::string>()).parent_path());
}

// The kill after a phase reaches every process of the worker: a second unit waits its turn.
TEST_F(UserPipeline, SecondUnitOnTheSameWorkerIsRefusedWhileOneRuns) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  std::string marker = root + "/ran";
  configure(agent_script("never", "touch " + marker));
  std::string lock = root + "/state/worker-" + std::string(kWorker) + ".lock";
  int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fchown(fd, u->owner_uid, u->owner_gid), 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  auto r = run_as_owner("must wait");
  ::close(fd);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("another unit is running as worker"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(marker));
}

}  // namespace
}  // namespace aw::test
