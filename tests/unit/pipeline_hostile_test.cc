// A hostile agent against the pipeline (isolation none): what it leaves behind is killed, what it
// plants in git never runs on awaywork's side, a swapped clone loses the unit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class Hostile : public UnitTest {};

const char* kDaemons = R"(setsid sleep 613.77 </dev/null >/dev/null 2>&1 &
( setsid sh -c 'sleep 614.77 & exit 0' </dev/null >/dev/null 2>&1 & )
# leave only once both daemons are really running (exec'd), so their names are "sleep"
until pgrep -f 'sleep 613[.]77' >/dev/null && pgrep -f 'sleep 614[.]77' >/dev/null; do sleep 0.05; done
echo y > a.txt)";

// Unsandboxed, the runner finds the daemons, kills them and records them. (Sandboxed, they die
// with the phase's pid namespace before the runner looks: the next test.)
TEST_F(Hostile, DetachedSetsidSleepIsKilledAndTheRecordSaysSo) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("daemon", kDaemons), "sandbox: {mode: off}\n");
  auto r = run_unit("leave a daemon");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_FALSE(process_alive_with("613.77"));
  EXPECT_FALSE(process_alive_with("614.77"));
  const auto& agent = r.record["phases"][0];
  EXPECT_GE(agent["leftovers_killed"].get<int>(), 2);
  std::string names = agent["leftover_names"].dump();
  EXPECT_NE(names.find("sleep"), std::string::npos) << names;
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("left"), std::string::npos) << notes;
}

TEST_F(Hostile, DetachedDaemonsDieWithTheSandbox) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("daemon", kDaemons));
  auto r = run_unit("leave a daemon");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << r.out;
  EXPECT_FALSE(process_alive_with("613.77"));
  EXPECT_FALSE(process_alive_with("614.77"));
}

TEST_F(Hostile, EnvironmentOfTheOwnerNeverReachesTheAgent) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("env", "env > \"$AWAYWORK_OUTPUTS/env\""), "",
               "    env: [AW_TEST_PASSED]\n");
  auto r = run_unit("dump env", {},
                    {"AW_TEST_CANARY=canary-value-5521", "GITHUB_TOKEN=ghp_fake0000000000000000",
                     "SSH_AUTH_SOCK=/tmp/ssh-fake/agent.1", "AW_TEST_PASSED=passed-value"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dir = r.record["run_dir"];
  std::string env = read(dir + "/outputs/env");
  EXPECT_EQ(env.find("canary-value-5521"), std::string::npos) << env;
  EXPECT_EQ(env.find("GITHUB_TOKEN"), std::string::npos);
  EXPECT_EQ(env.find("SSH_AUTH_SOCK"), std::string::npos);
  EXPECT_NE(env.find("AW_TEST_PASSED=passed-value"), std::string::npos) << env;
  EXPECT_NE(env.find("HOME=" + dir + "/home"), std::string::npos) << env;
  EXPECT_NE(env.find("AWAYWORK_UNIT=" + r.record["id"].get<std::string>()), std::string::npos);
  EXPECT_NE(env.find("AWAYWORK_OUTPUTS=" + dir + "/outputs"), std::string::npos);
}

// Every way the clone's git metadata could make awaywork's own git run something: each one
// would create the marker file outside the clone.
TEST_F(Hostile, GitHooksConfigAndFiltersPlantedByTheAgentNeverRun) {
  make_repo({{"a.txt", "x\n"}});
  std::string marker = root + "/MARKER";
  // The agent writes the evil program itself (the test's folders are private in its sandbox);
  // awaywork's side runs outside, where the marker's folder is real.
  std::string evil = "$HOME/evil";
  write_config(agent_script("plant", R"(
printf '#!/bin/sh\ntouch MARKER_PATH\ncat\n' > "$HOME/evil" && chmod +x "$HOME/evil"
mkdir -p .git/hooks
for h in pre-commit post-commit post-checkout pre-push reference-transaction pre-receive \
         post-receive update post-index-change fsmonitor-watchman; do
  cp EVIL .git/hooks/$h; chmod +x .git/hooks/$h
done
mkdir -p "$HOME/hooks2" && cp EVIL "$HOME/hooks2/pre-commit"
cp EVIL "$HOME/hooks2/reference-transaction"
git config core.hooksPath "$HOME/hooks2"
git config core.fsmonitor EVIL
git config diff.external EVIL
git config filter.evil.clean EVIL
git config filter.evil.smudge EVIL
git config diff.evil.textconv EVIL
git config core.pager EVIL
echo '* filter=evil diff=evil' > .git/info/attributes
echo changed > a.txt
echo untracked > b.txt)"));
  // substitute the evil program's path into the agent script
  std::string script = read(root + "/agents/plant");
  for (size_t p; (p = script.find("EVIL")) != std::string::npos;) script.replace(p, 4, evil);
  for (size_t p; (p = script.find("MARKER_PATH")) != std::string::npos;)
    script.replace(p, 11, marker);
  std::ofstream(root + "/agents/plant") << script;
  auto r = run_unit("plant hooks");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_FALSE(exists(marker)) << "something the agent planted ran on awaywork's side";
  std::string branch = r.record["branch"];
  EXPECT_EQ(git({"show", branch + ":a.txt"}), "changed\n");
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("pre-commit"), std::string::npos) << "hooks removed and noted: " << notes;
}

TEST_F(Hostile, DotGitReplacedByALinkLosesTheUnitAndLeavesTheTargetAlone) {
  make_repo({{"a.txt", "x\n"}});
  std::string victim = root + "/victim";
  std::filesystem::create_directories(victim);
  UnitTest::git({"clone", "-q", src, victim});
  std::string victim_config = read(victim + "/.git/config");
  write_config(agent_script("swap", "echo y > a.txt\nrm -rf .git\nln -s " + victim + "/.git .git"));
  auto r = run_unit("swap .git");
  EXPECT_EQ(r.exit_code, 4) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "lost");
  EXPECT_NE(r.record["reason"].get<std::string>().find("lost"), std::string::npos);
  EXPECT_EQ(read(victim + "/.git/config"), victim_config);
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

// Sandboxed, the clone is a mount point the agent cannot move; these pin the identity checks
// after each phase, which are what stands when the sandbox is off (or preferred and unavailable).
const char* kUnsandboxed = "sandbox: {mode: off}\n";

TEST_F(Hostile, CloneFolderSwappedForALinkLosesTheUnit) {
  make_repo({{"a.txt", "x\n"}});
  std::string victim = root + "/victim";
  UnitTest::git({"clone", "-q", src, victim});
  std::string victim_config = read(victim + "/.git/config");
  write_config(
      agent_script("swap", "echo y > a.txt\ncd ..\nmv work work.moved\nln -s " + victim + " work"),
      kUnsandboxed);
  auto r = run_unit("swap clone");
  EXPECT_EQ(r.record["state"], "lost") << r.out << r.err;
  EXPECT_EQ(read(victim + "/.git/config"), victim_config);
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Hostile, CloneFolderSwappedForAnotherRealFolderLosesTheUnit) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("swap",
                            "cd ..\nmv work work.moved\ncp -a work.moved work\n"
                            "echo y > work/a.txt"),
               kUnsandboxed);
  auto r = run_unit("swap clone for a copy");
  EXPECT_EQ(r.record["state"], "lost") << r.out << r.err;
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Hostile, SandboxedAgentCannotMoveItsCloneAway) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("swap",
                            "cd ..\nif mv work work.moved; then echo moved; fi\n"
                            "echo y > work/a.txt"));
  auto r = run_unit("swap clone");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["state"], "done");
  std::string branch = r.record["branch"];
  EXPECT_EQ(git({"show", branch + ":a.txt"}), "y\n");
}

}  // namespace
}  // namespace aw::test
