// Issue 26's follow-up units, end to end against the fake GitHub with real git and the awaywork
// binary: with follow_ci, a base branch whose protection requires checks starts a follow-up only
// for a failing required check (a failing check it does not require asks for nothing, and is not
// quoted); `run --pr NAME#N --artifact DIR` holds the follow-up (nothing written on the forge)
// and `apply --from DIR` publishes it on the pull request's branch as one fast-forward commit,
// a reply in each thread and review requested again, idempotently.
#include <algorithm>
#include <map>

#include "forge_pull_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

class ForgePullFollowUp : public ForgePull {
 protected:
  // awaywork's replies in the pull request's review threads.
  int replies() {
    int n = 0;
    for (const auto& c : get("/repos/octo/web/pulls/" + std::to_string(pull) + "/comments"))
      n += c["user"]["login"] == "aw-bot";
    return n;
  }
};

// Branch protection's required checks: main requires "build". A failing "lint" alone asks for
// nothing (without the rule it would: every failing check counted); a failing "build" starts the
// follow-up, whose task quotes "build" and not "lint".
TEST_F(ForgePullFollowUp, OnlyAFailingCheckTheBaseBranchRequiresStartsAFollowUp) {
  extra_repo_keys = "    follow_ci: true\n";
  write_config();
  open_pull();
  auto rule = fake->control(
      "PUT", "repos/octo/web/branches/main/protection",
      {{"checks", json::array({{{"context", "build"}, {"app_id", nullptr}}})}, {"strict", true}});
  ASSERT_EQ(rule.value("contexts", json::array()), json::array({"build"})) << rule.dump(2);
  ASSERT_EQ(get("/repos/octo/web/branches/main")["protected"], true);

  failing_check("lint");
  Captured lint = aw({"run", "--pr", pr(), "--json"});
  EXPECT_NE(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_NE((lint.out + lint.err).find("and no check fails on the head"), std::string::npos)
      << lint.out << lint.err;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit);

  failing_check("build");
  write_agent(
      "cat > \"$AWAYWORK_OUTPUTS/task.txt\"\n"
      "printf 'BRAVO\\nline two\\nline three\\n' > b.txt");
  Captured c = aw({"run", "--pr", pr(), "--json"});
  auto u = json::parse(c.out, nullptr, false);
  ASSERT_FALSE(u.is_discarded()) << "exit " << c.exit_code << "\n" << c.out << c.err;
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string task = read_file(u["run_dir"].get<std::string>() + "/outputs/task.txt").value_or("");
  EXPECT_NE(task.find("Failing check build (check run, failure)."), std::string::npos) << task;
  EXPECT_EQ(task.find("Failing check lint"), std::string::npos) << task;
  EXPECT_NE(task.find("1 check fails on the pull request's head"), std::string::npos) << task;
  bool noted = false;
  for (const auto& n : u["notes"]) noted = noted || n == "failing checks in the task: build";
  EXPECT_TRUE(noted) << u.dump(2);
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first_commit);
}

// `run --pr NAME#N --artifact DIR` (the reusable workflow's agent job): the follow-up is checked
// and held, nothing is written on the forge (no commit, no reply, no progress comment); `apply
// --from DIR` publishes it as the run would have, on the pull request's branch, never as a new
// pull request; a second `apply --from` writes nothing more.
TEST_F(ForgePullFollowUp, ARunPrArtifactIsHeldAndApplyFromPublishesItOnTheBranch) {
  open_pull();
  request_changes(/*and_a_stranger=*/false);
  write_agent("printf 'BRAVO\\nline two\\n' > b.txt");
  std::string artifact = tmp.path + "/artifact";
  size_t writes_before = fake->writes().size();
  Captured c = aw({"run", "--pr", pr(), "--artifact", artifact, "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  auto u = json::parse(c.out, nullptr, false);
  ASSERT_FALSE(u.is_discarded()) << c.out;
  EXPECT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_EQ(u["verdict"], "accepted") << u.dump(2);
  for (const char* f : {"manifest.json", "patch.diff", "verdict.json", "record.json"})
    EXPECT_EQ(sh("test -f " + sq(artifact + "/" + f) + " && echo yes"), "yes") << f;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit) << "held: nothing pushed";
  EXPECT_EQ(replies(), 0);
  for (size_t w = writes_before; w < fake->writes().size(); ++w)
    ADD_FAILURE() << "the held follow-up wrote on the forge: " << fake->writes()[w].dump();

  Captured a = aw({"apply", "--from", artifact, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto j = json::parse(a.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << a.out;
  EXPECT_EQ(j["branch"], branch) << j.dump(2);
  std::string commit = fake_git("rev-parse refs/heads/" + branch);
  EXPECT_EQ(j["commit"], commit);
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first_commit) << "one fast-forward commit";
  EXPECT_EQ(fake_git("show " + branch + ":b.txt"), "BRAVO\nline two");
  EXPECT_EQ(get("/repos/octo/web/pulls?state=all").size(), 1u) << "no new pull request";
  EXPECT_EQ(replies(), 2);
  auto requested = get("/repos/octo/web/pulls/" + std::to_string(pull) + "/requested_reviewers");
  ASSERT_EQ(requested["users"].size(), 1u) << requested.dump(2);
  EXPECT_EQ(requested["users"][0]["login"], "maint");

  Captured again = aw({"apply", "--from", artifact, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto k = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(k.is_discarded()) << again.out;
  EXPECT_EQ(k["already_applied"], true) << k.dump(2);
  EXPECT_TRUE(k["posted"].empty()) << k.dump(2);
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), commit);
  EXPECT_EQ(replies(), 2);
}

}  // namespace
}  // namespace aw::test
