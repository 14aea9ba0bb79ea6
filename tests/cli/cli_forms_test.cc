// The command line's forms: global options before or after the subcommand, a relative --config
// (made absolute at once, so the sandbox can hide it by path), and --version naming the commit.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "../unit/unit_fixture.h"
#include "base/fs.h"
#include "proc/capture.h"

namespace aw::test {
namespace {

class CliForms : public UnitTest {
 protected:
  // awaywork ARGS... exactly as given (no --config put in front), from cwd.
  RunOutput bare(const std::vector<std::string>& args, const std::string& cwd = "") {
    CaptureSpec spec;
    spec.argv = {awaywork_binary()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
    spec.cwd = cwd;
    return run_captured(spec);
  }
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
    // Sandbox off: these forms are about the command line, and run as any user.
    write_config(agent_script("edit", "echo edited >> a.txt\n"), "", "sandbox: {mode: off}\n");
  }
};

TEST_F(CliForms, ConfigAndJsonAfterTheSubcommand) {
  auto r = bare({"units", "--config", config, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.record.is_array()) << r.out << r.err;
}

TEST_F(CliForms, ConfigAndJsonBeforeTheSubcommand) {
  auto r = bare({"--config", config, "--json", "units"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.record.is_array()) << r.out << r.err;
}

TEST_F(CliForms, ConfigAfterTheSubcommandIsTheOneRead) {
  // A config naming another state_dir: units lists from it, so the option was really used.
  std::string other = root + "/other.yml";
  std::ofstream(other) << "state_dir: [not a path\n";
  auto good = bare({"units", "--config", config});
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  auto bad = bare({"units", "--config", other});
  EXPECT_NE(bad.exit_code, 0) << bad.out << bad.err;
  EXPECT_NE(bad.err.find(other), std::string::npos) << bad.err;
}

TEST_F(CliForms, RunWithConfigAfterTheSubcommandRunsTheUnit) {
  auto r = bare({"run", "--config", config, "--repo", "src", "--prompt", "edit", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record.value("state", ""), "done") << r.out << r.err;
}

TEST_F(CliForms, RelativeConfigRunsAUnitUnderTheDefaultSandbox) {
  if (::geteuid() != 0) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "needs root (the default sandbox's limits)";
    GTEST_SKIP() << "needs root (the default sandbox's limits)";
  }
  // The default sandbox: it hides the config file by its path, which must be absolute.
  write_config(root + "/agents/edit");
  auto r =
      bare({"run", "--config", "config.yml", "--repo", "src", "--prompt", "edit", "--json"}, root);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record.value("state", ""), "done") << r.out << r.err;
  EXPECT_EQ(r.err.find("not an absolute path"), std::string::npos) << r.err;
}

TEST_F(CliForms, RelativeConfigBeforeTheSubcommandIsFound) {
  auto r = bare({"--config", "./config.yml", "units", "--json"}, root);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(r.record.is_array()) << r.out << r.err;
}

TEST_F(CliForms, VersionNamesTheVersionAndACommitOfThisCheckout) {
  auto r = bare({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m, std::regex(R"(^awaywork (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}|unknown)\)\n$)")))
      << r.out;
  // Built from a git checkout here: the commit is a real one of it, not "unknown".
  CaptureSpec git;
  git.argv = {"/usr/bin/git", "-C", AW_SOURCE_DIR, "cat-file", "-e", m[2].str() + "^{commit}"};
  for (char** e = environ; *e; ++e) git.env.emplace_back(*e);
  auto g = capture(git);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(g->exit_code, 0) << "commit " << m[2] << " is not in " << AW_SOURCE_DIR << ": "
                             << g->err;
}

TEST_F(CliForms, UnknownOptionAfterTheSubcommandIsStillAUsageError) {
  auto r = bare({"units", "--config", config, "--no-such-option"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
}

// `plugin list` and `plugin approve` (issue 28): list shows the kind, the declared permissions and
// the approval; approve makes it current; a changed byte shows as changed with the command again.
TEST_F(CliForms, PluginListShowsApprovalAndApproveMakesItCurrent) {
  ASSERT_TRUE(make_dirs(root + "/notify"));
  ASSERT_TRUE(write_file(root + "/notify/notify.sh", "#!/bin/sh\nexit 0\n", 0755));
  write_config(agent_script("edit", "echo edited >> a.txt\n"),
               "plugins:\n  run: true\n  notify:\n    kind: notifier\n    command: [" + root +
                   "/notify/notify.sh]\n    net: [hooks.example.com]\n    env: [TZ]\n",
               "sandbox: {mode: off}\n");
  auto r = awaywork({"plugin", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("plugins: on (plugins: {run: true})"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notify  notifier  not approved (awaywork plugin approve notify)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  net: hooks.example.com\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  env: TZ\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  read: none\n"), std::string::npos) << r.out;

  r = awaywork({"plugin", "approve", "notify"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("approved plugin notify: 1 file(s) in "), std::string::npos) << r.out;
  r = awaywork({"plugin", "list", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.record.is_object()) << r.out;
  EXPECT_EQ(r.record["run"], true);
  ASSERT_EQ(r.record["plugins"].size(), 1u) << r.out;
  const auto& p = r.record["plugins"][0];
  EXPECT_EQ(p["name"], "notify");
  EXPECT_EQ(p["kind"], "notifier");
  EXPECT_EQ(p["state"], "approved");
  EXPECT_EQ(p["approved"], true);
  EXPECT_EQ(p["permissions"]["net"], nlohmann::json::array({"hooks.example.com"}));

  ASSERT_TRUE(write_file(root + "/notify/notify.sh", "#!/bin/sh\nexit 1\n", 0755));
  r = awaywork({"plugin", "list"});
  EXPECT_NE(r.out.find("notify  notifier  changed since approval (awaywork plugin approve notify)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  changed: file notify.sh changed\n"), std::string::npos) << r.out;
  r = awaywork({"plugin", "list", "--json"});
  EXPECT_EQ(r.record["plugins"][0]["state"], "changed") << r.out;
  EXPECT_EQ(r.record["plugins"][0]["approved"], false) << r.out;

  r = awaywork({"plugin", "approve", "nosuch"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no plugin nosuch is declared in the config's plugins: section (it "
                       "declares notify)"),
            std::string::npos)
      << r.err;
  // By its folder (issue 28 item 1): the same approval; an unknown folder is a usage error naming
  // it and the fix.
  r = awaywork({"plugin", "approve", root + "/notify/"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("approved plugin notify: 1 file(s) in "), std::string::npos) << r.out;
  r = awaywork({"plugin", "list", "--json"});
  EXPECT_EQ(r.record["plugins"][0]["state"], "approved") << r.out;
  r = awaywork({"plugin", "approve", root + "/nowhere"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(root + "/nowhere is neither a plugin declared under plugins: nor a folder "
                              "that exists"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("fix: give the plugin's name or its folder"), std::string::npos) << r.err;
}

// `plugin disable` and `plugin enable` (issue 28): recorded in the state folder, shown by list
// (text and --json), undone by enable; an undeclared name is a usage error naming the declared.
TEST_F(CliForms, PluginDisableIsShownByListAndUndoneByEnable) {
  ASSERT_TRUE(make_dirs(root + "/notify"));
  ASSERT_TRUE(write_file(root + "/notify/notify.sh", "#!/bin/sh\nexit 0\n", 0755));
  write_config(agent_script("edit", "echo edited >> a.txt\n"),
               "plugins:\n  run: true\n  notify:\n    kind: notifier\n    command: [" + root +
                   "/notify/notify.sh]\n",
               "sandbox: {mode: off}\n");
  auto r = awaywork({"plugin", "disable", "notify"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("disabled plugin notify: it does not run until awaywork plugin enable "
                       "notify"),
            std::string::npos)
      << r.out;
  r = awaywork({"plugin", "list"});
  EXPECT_NE(r.out.find("notify  notifier  not approved (awaywork plugin approve notify), disabled "
                       "(awaywork plugin enable notify)"),
            std::string::npos)
      << r.out;
  r = awaywork({"plugin", "list", "--json"});
  ASSERT_TRUE(r.record.is_object()) << r.out;
  EXPECT_EQ(r.record["plugins"][0]["disabled"], true) << r.out;

  r = awaywork({"plugin", "enable", "notify"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("enabled plugin notify: it runs again as approved"), std::string::npos)
      << r.out;
  r = awaywork({"plugin", "list", "--json"});
  EXPECT_EQ(r.record["plugins"][0]["disabled"], false) << r.out;

  r = awaywork({"plugin", "disable", "nosuch"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no plugin nosuch is declared"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aw::test
