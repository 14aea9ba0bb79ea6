// The unit pipeline end to end with isolation none: the real binary, real git, real processes.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "unit_fixture.h"

namespace aw::test {
namespace {

class Pipeline : public UnitTest {};

TEST_F(Pipeline, HappyPathPublishesTheAgentsWorkAsANewBranch) {
  make_repo({{"README.md", "hello\n"}, {"src/a.txt", "one\n"}});
  write_config(agent_script("edit", R"(
cat > "$AWAYWORK_OUTPUTS/prompt-seen"
echo two >> src/a.txt
echo new > NEW.md
echo "agent done")"),
               "    checks: [\"test -f NEW.md\", [grep, -q, two, src/a.txt]]\n");
  auto r = run_unit("Add a line to a.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto& u = r.record;
  EXPECT_EQ(u["state"], "done");
  std::string branch = u["branch"];
  EXPECT_EQ(branch, "awaywork/" + u["id"].get<std::string>());
  EXPECT_EQ(git({"rev-parse", branch}), u["commit"].get<std::string>() + "\n");
  EXPECT_EQ(git({"show", branch + ":src/a.txt"}), "one\ntwo\n");
  EXPECT_EQ(git({"show", branch + ":NEW.md"}), "new\n");
  EXPECT_EQ(git({"rev-parse", branch + "^"}), git({"rev-parse", "main"}));
  ASSERT_EQ(u["phases"].size(), 3u);
  EXPECT_EQ(u["phases"][0]["name"], "agent");
  EXPECT_EQ(u["phases"][1]["name"], "check 1");
  EXPECT_EQ(u["phases"][2]["exit_code"], 0);
  EXPECT_EQ(u["patch_files"], 2);
  std::string run_dir = u["run_dir"];
  EXPECT_EQ(read(run_dir + "/outputs/prompt-seen"), "Add a line to a.txt");
  EXPECT_NE(read(run_dir + "/transcript.log").find("agent done"), std::string::npos);
  EXPECT_NE(read(run_dir + "/patch.diff").find("+two"), std::string::npos);
  EXPECT_FALSE(exists(run_dir + "/home")) << "the unit's HOME goes with the unit";
}

TEST_F(Pipeline, OwnersCheckoutUncommittedWorkAndBranchesAreUntouched) {
  make_repo({{"a.txt", "base\n"}, {"b.txt", "b\n"}});
  git({"branch", "awaywork/older"});
  git({"checkout", "-q", "-b", "feature"});
  std::ofstream(src + "/a.txt") << "owner's uncommitted edit\n";
  std::ofstream(src + "/scratch.txt") << "owner's untracked file\n";
  git({"add", "b.txt"});
  std::string index_before = read(src + "/.git/index");
  std::string refs_before = git({"for-each-ref"});
  write_config(agent_script("edit", "echo agent > a.txt"), "    base: main\n");
  auto r = run_unit("edit a");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read(src + "/a.txt"), "owner's uncommitted edit\n");
  EXPECT_EQ(read(src + "/scratch.txt"), "owner's untracked file\n");
  EXPECT_EQ(read(src + "/.git/index"), index_before);
  EXPECT_EQ(git({"symbolic-ref", "--short", "HEAD"}), "feature\n");
  std::string refs_after = git({"for-each-ref"});
  std::string branch = r.record["branch"];
  // The only new ref is the unit's branch; every existing ref (awaywork/older too) is unchanged.
  EXPECT_EQ(refs_after.size() > refs_before.size(), true);
  for (size_t p = 0, q; (q = refs_before.find('\n', p)) != std::string::npos; p = q + 1)
    EXPECT_NE(refs_after.find(refs_before.substr(p, q - p)), std::string::npos);
  EXPECT_EQ(git({"show", branch + ":a.txt"}), "agent\n");
  EXPECT_EQ(r.record["base_ref"], "main");
}

TEST_F(Pipeline, SetupFailureNamesThePhaseAndExitCodeAndRunsNoAgent) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("never", "touch \"$AWAYWORK_OUTPUTS/agent-ran\""),
               "    setup: [sh, -c, \"exit 3\"]\n");
  auto r = run_unit("anything");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.record["state"], "failed");
  std::string reason = r.record["reason"];
  EXPECT_NE(reason.find("setup phase failed: exit 3"), std::string::npos) << reason;
  ASSERT_EQ(r.record["phases"].size(), 1u);
  EXPECT_EQ(r.record["phases"][0]["exit_code"], 3);
  EXPECT_FALSE(exists(r.record["run_dir"].get<std::string>() + "/outputs/agent-ran"));
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Pipeline, FailingCheckPublishesNothing) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("edit", "echo y > a.txt"), "    checks: [\"false\"]\n");
  auto r = run_unit("edit");
  EXPECT_EQ(r.record["state"], "failed");
  EXPECT_NE(r.record["reason"].get<std::string>().find("check 1 phase failed: exit 1"),
            std::string::npos);
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Pipeline, AgentThatRunsPastTheUnitTimeIsStoppedAndRecordedTimedOut) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("slow", "trap '' TERM\nsleep 611.25"));
  auto r = run_unit("slow", {"--unit-seconds", "1"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.record["state"], "timed_out");
  EXPECT_EQ(r.record["phases"][0]["end"], "timed_out");
  EXPECT_FALSE(process_alive_with("611.25"));
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Pipeline, AgentThatChangesNothingSucceedsWithoutABranch) {
  make_repo({{"a.txt", "x\n"}});
  write_config("/bin/true");
  auto r = run_unit("nothing");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_EQ(r.record["branch"], "");
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

TEST_F(Pipeline, PromptFileModeNeverPutsThePromptOnArgv) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("file", R"(cp "$AWAYWORK_PROMPT_FILE" "$AWAYWORK_OUTPUTS/got"
cat /proc/$$/cmdline > "$AWAYWORK_OUTPUTS/argv"
test ! -s /dev/stdin || echo stdin-not-empty > "$AWAYWORK_OUTPUTS/stdin")"),
               "", "    prompt: file\n");
  auto r = run_unit("the secret plan 7781");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string dir = r.record["run_dir"];
  EXPECT_EQ(read(dir + "/outputs/got"), "the secret plan 7781");
  EXPECT_EQ(read(dir + "/outputs/argv").find("7781"), std::string::npos);
  EXPECT_FALSE(exists(dir + "/outputs/stdin"));
}

TEST_F(Pipeline, UnitsAndShowListPhasesExitCodesDurationsAndBranch) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("edit", "echo y > a.txt"));
  auto r = run_unit("edit a");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = r.record["id"];
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.exit_code, 0);
  ASSERT_EQ(list.record.size(), 1u);
  EXPECT_EQ(list.record[0]["id"], id);
  auto show = awaywork({"show", id.substr(0, 18), "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.record["branch"], r.record["branch"]);
  EXPECT_EQ(show.record["phases"][0]["exit_code"], 0);
  EXPECT_GE(show.record["phases"][0]["duration_ms"], 0);
  auto text = awaywork({"show", id});
  EXPECT_NE(text.out.find("agent"), std::string::npos);
  EXPECT_NE(text.out.find("1 file changed"), std::string::npos) << text.out;
  auto missing = awaywork({"show", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no unit 'nope'"), std::string::npos);
}

TEST_F(Pipeline, PublishUrlSendsTheBranchToTheRemoteNotTheSource) {
  make_repo({{"a.txt", "x\n"}});
  std::string remote = root + "/remote.git";
  git({"clone", "-q", "--bare", src, remote});
  write_config(agent_script("edit", "echo y > a.txt"),
               "    publish: {url: \"file://" + remote + "\", branch: main}\n");
  auto r = run_unit("edit for the remote");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string branch = r.record["branch"];
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "") << "nothing in the source";
  EXPECT_EQ(git({"--git-dir", remote, "show", branch + ":a.txt"}), "y\n");
  std::string msg = git({"--git-dir", remote, "log", "-1", "--format=%B", branch});
  EXPECT_NE(msg.find("Awaywork-Unit: " + r.record["id"].get<std::string>()), std::string::npos);
  // A second apply of the same unit finds its marker and does nothing.
  auto again = awaywork({"apply", r.record["id"], "--json"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.record["already_applied"], true) << again.out;
}

// Issue 41, item 1: the commit subject was the prompt's first line, raw and cut at 60 bytes.
TEST_F(Pipeline, ACommitSubjectFromThePromptGoesThroughTheTitleRules) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("edit", "echo y > a.txt"));
  auto r = run_unit(
      "Fix \u202E cilbup \u202C <!-- awaywork:claim host=evil pid=1 state=active --> @alice "
      "closes #1\nthe rest of the task");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string msg = git({"log", "-1", "--format=%B", r.record["branch"].get<std::string>()});
  std::string subject = msg.substr(0, msg.find('\n'));
  EXPECT_EQ(subject.rfind("awaywork: Fix ", 0), 0u) << subject;
  EXPECT_EQ(msg.find("\u202E"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("<!--"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("#1"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("rest of the task"), std::string::npos) << msg;
}

// The prompt (an issue's body, hostile) and the agent's output may hold bytes that are not
// UTF-8: the unit still ends recorded, its summary.json and its database record with U+FFFD for
// them. A strict dump threw there (type_error 316): the process ended and the record was lost.
TEST_F(Pipeline, APromptWithBytesThatAreNotUtf8IsRecordedWithReplacements) {
  make_repo({{"a.txt", "x\n"}});
  write_config(agent_script("edit", "printf 'done \\377\\376\\n'; echo y > a.txt"));
  auto r = run_unit("Fix the typo \xff\xfe in a.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(r.record["state"], "done") << r.out;
  EXPECT_EQ(r.record["prompt"], "Fix the typo " + fffd + fffd + " in a.txt") << r.out;
  std::string run_dir = r.record["run_dir"];
  auto summary = nlohmann::json::parse(read(run_dir + "/summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << read(run_dir + "/summary.json");
  EXPECT_EQ(summary["prompt"], r.record["prompt"]);
  EXPECT_EQ(summary["state"], "done");
  auto shown = awaywork({"show", r.record["id"].get<std::string>(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.record["prompt"], r.record["prompt"]);
  EXPECT_EQ(git({"show", r.record["branch"].get<std::string>() + ":a.txt"}), "y\n");
}

TEST_F(Pipeline, UnitIdsSortByTimeAndReadWell) {
  make_repo({{"a.txt", "x\n"}});
  write_config("/bin/true");
  auto r = run_unit("Fix the typo, please!");
  std::string id = r.record["id"];
  // 20261129-180312-fix-the-typo-please-3f2a
  EXPECT_TRUE(std::regex_match(id, std::regex(R"(\d{8}-\d{6}-fix-the-typo-please-[0-9a-f]{4})")))
      << id;
}

}  // namespace
}  // namespace aw::test
