// Issue 26's CI follow-ups and repository rulesets, end to end against the fake GitHub with real
// git and the awaywork binary: with follow_ci, the checks the base branch requires are the union
// of its branch protection's and its rulesets' (GET .../rules/branches/BASE). A ruleset alone
// limits the follow-ups to the checks it requires; protection and a ruleset together require
// both lists; with neither, every failing check counts. The requirements are read only when a
// check fails.
#include <algorithm>

#include "forge_pull_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

class ForgePullRuleset : public ForgePull {
 protected:
  void SetUp() override {
    ForgePull::SetUp();
    extra_repo_keys = "    follow_ci: true\n";
    write_config();
  }

  // A ruleset on main (the default branch) requiring these checks ({context, integration_id?}).
  void ruleset_requires(json checks) {
    auto made = fake->control(
        "POST", "repos/octo/web/rulesets",
        {{"name", "ci"},
         {"include", json::array({"~DEFAULT_BRANCH"})},
         {"rules", json::array({{{"type", "required_status_checks"},
                                 {"parameters",
                                  {{"required_status_checks", std::move(checks)},
                                   {"strict_required_status_checks_policy", false}}}}})}});
    ASSERT_TRUE(made.contains("id")) << made.dump(2);
    auto rules = get("/repos/octo/web/rules/branches/main");
    ASSERT_EQ(rules.size(), 1u) << rules.dump(2);
  }

  // How often awaywork (aw-bot; the test reads as octo) asked for the base branch's rules.
  int rules_reads() {
    int n = 0;
    for (const auto& e : fake->log())
      n += e.value("path", "").find("/repos/octo/web/rules/branches/main") != std::string::npos &&
           e.value("login", json()) == "aw-bot";
    return n;
  }

  // run --pr with an agent that keeps its task; the unit's record and that task.
  std::pair<json, std::string> follow_up() {
    write_agent(
        "cat > \"$AWAYWORK_OUTPUTS/task.txt\"\n"
        "printf 'BRAVO\\nline two\\nline three\\n' > b.txt");
    Captured c = aw({"run", "--pr", pr(), "--json"});
    auto u = json::parse(c.out, nullptr, false);
    if (u.is_discarded() || !u.contains("run_dir")) {
      ADD_FAILURE() << "exit " << c.exit_code << "\n" << c.out << c.err;
      return {json(), ""};
    }
    return {u, read_file(u["run_dir"].get<std::string>() + "/outputs/task.txt").value_or("")};
  }
};

bool has(const std::string& task, const std::string& check) {
  return task.find("Failing check " + check + " (check run, failure).") != std::string::npos;
}

// main has no protection; a ruleset requires "build". A failing "lint" alone asks for nothing
// (without the ruleset it would); a failing "build" starts the follow-up, which quotes "build"
// only. Nothing failing, the rules are not even asked.
TEST_F(ForgePullRuleset, ARulesetOnlyRequiredCheckLimitsCiFollowUpsToIt) {
  open_pull();
  ruleset_requires(json::array({{{"context", "build"}}}));
  // Branch protection is not involved: the branch stays unprotected.
  ASSERT_EQ(get("/repos/octo/web/branches/main")["protected"], false);

  Captured nothing = aw({"run", "--pr", pr(), "--json"});
  EXPECT_NE(nothing.exit_code, 0) << nothing.out << nothing.err;
  EXPECT_EQ(rules_reads(), 0) << "the rules asked although no check fails";

  failing_check("lint");
  Captured lint = aw({"run", "--pr", pr(), "--json"});
  EXPECT_NE(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_NE((lint.out + lint.err).find("and no check fails on the head"), std::string::npos)
      << lint.out << lint.err;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit);
  EXPECT_GE(rules_reads(), 1);

  failing_check("build");
  auto [u, task] = follow_up();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_TRUE(has(task, "build")) << task;
  EXPECT_FALSE(has(task, "lint")) << task;
  EXPECT_NE(task.find("1 check fails on the pull request's head"), std::string::npos) << task;
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first_commit);
}

// Protection requires "build", a ruleset "lint": both count, a check neither names does not.
TEST_F(ForgePullRuleset, ProtectionAndARulesetRequireTheirUnion) {
  open_pull();
  ruleset_requires(json::array({{{"context", "lint"}, {"integration_id", 15368}}}));
  auto rule = fake->control(
      "PUT", "repos/octo/web/branches/main/protection",
      {{"checks", json::array({{{"context", "build"}, {"app_id", nullptr}}})}, {"strict", true}});
  ASSERT_EQ(rule.value("contexts", json::array()), json::array({"build"})) << rule.dump(2);
  ASSERT_EQ(get("/repos/octo/web/branches/main")["protected"], true);

  failing_check("docs");
  Captured docs = aw({"run", "--pr", pr(), "--json"});
  EXPECT_NE(docs.exit_code, 0) << docs.out << docs.err;
  EXPECT_NE((docs.out + docs.err).find("and no check fails on the head"), std::string::npos)
      << docs.out << docs.err;

  failing_check("build");
  failing_check("lint");  // GitHub Actions' check run: app 15368, as the ruleset names
  auto [u, task] = follow_up();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_TRUE(has(task, "build")) << task;
  EXPECT_TRUE(has(task, "lint")) << task;
  EXPECT_FALSE(has(task, "docs")) << task;
  std::string note;
  for (const auto& n : u["notes"])
    if (n.get<std::string>().rfind("failing checks in the task: ", 0) == 0) note = n;
  EXPECT_NE(note.find("build"), std::string::npos) << u.dump(2);
  EXPECT_NE(note.find("lint"), std::string::npos) << u.dump(2);
  EXPECT_EQ(note.find("docs"), std::string::npos) << u.dump(2);
}

// Neither protection nor a ruleset: the rules answer [] and every failing check counts.
TEST_F(ForgePullRuleset, NeitherProtectionNorARulesetEveryFailingCheckCounts) {
  open_pull();
  ASSERT_EQ(get("/repos/octo/web/rules/branches/main"), json::array());
  failing_check("lint");
  auto [u, task] = follow_up();
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_TRUE(has(task, "lint")) << task;
  EXPECT_GE(rules_reads(), 1) << "an empty answer read, not skipped";
}

}  // namespace
}  // namespace aw::test
