// Each way the forge can fail gives its clear reason and posts nothing half: a refused token, a
// missing issue, limits and 5xx bursts waited out, a refused push, a refused pull request (a
// later apply finishes it), drafts refused (the compare link instead).
#include "forge_fixture.h"

namespace aw::test {
namespace {

class ForgeFailure : public ForgeTest {
 protected:
  void SetUp() override {
    ForgeTest::SetUp();
    write_agent(
        "printf 'bravo\\n' > b.txt\n"
        "echo '{\"type\":\"add_comment\",\"body\":\"done\"}' > "
        "\"$AWAYWORK_OUTPUTS/requests.jsonl\"");
  }
  // Writes other than the progress comment (its post and edits).
  size_t publish_writes() {
    size_t n = 0;
    for (const auto& w : fake->writes())
      if (w.value("kind", "") == "git" ||
          w["path"].get<std::string>().find("/pulls") != std::string::npos)
        ++n;
    return n;
  }
  std::vector<std::string> comment_bodies(int64_t n) {
    std::vector<std::string> out;
    for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
      out.push_back(c["body"]);
    return out;
  }
};

TEST_F(ForgeFailure, ARefusedTokenNamesTheCredentialAndTheFix) {
  Captured set = aw({"secret", "set", "GH_TOKEN"}, "ghp_" + std::string(36, 'Z'));
  ASSERT_EQ(set.exit_code, 0) << set.err;
  int64_t n = issue("octo", "t", "b");
  Captured c = aw({"run", "--issue", "web#" + std::to_string(n)});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("401 \"Bad credentials\""), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("awaywork secret set GH_TOKEN"), std::string::npos) << c.err;
  EXPECT_TRUE(fake->writes().empty()) << fake->writes().dump();
}

TEST_F(ForgeFailure, AMissingIssueIsA404WithItsReason) {
  Captured c = aw({"run", "--issue", "octo/web#999"});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("GET /repos/octo/web/issues/999: 404 \"Not Found\""), std::string::npos)
      << c.err;
  EXPECT_TRUE(fake->writes().empty());
}

TEST_F(ForgeFailure, ASecondaryLimitAndA5xxBurstAreWaitedOut) {
  int64_t n = issue("octo", "t", "b");
  fake->control("POST", "faults", {{"secondary_limit", 1}, {"retry_after", 1}});
  fake->control("POST", "faults", {{"server_errors", 2}, {"status", 502}});
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  EXPECT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_FALSE(u["pull_request"].get<std::string>().empty());
}

TEST_F(ForgeFailure, ARefusedPushPostsNothingButTheProgressEnd) {
  int64_t n = issue("octo", "t", "b");
  fake->control("PATCH", "repos/octo/web", {{"push_refused", true}});
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  EXPECT_EQ(u["state"], "failed");
  std::string reason = u["reason"];
  EXPECT_NE(reason.find("pushing the branch to octo/web"), std::string::npos) << reason;
  EXPECT_NE(reason.find("pre-receive hook declined"), std::string::npos) << reason;
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());
  auto bodies = comment_bodies(n);
  ASSERT_EQ(bodies.size(), 1u);  // the progress comment only
  EXPECT_NE(bodies[0].find("Ended: failed"), std::string::npos) << bodies[0];
}

TEST_F(ForgeFailure, ARefusedPullRequestSaysSoAndALaterApplyFinishesIt) {
  int64_t n = issue("octo", "t", "b");
  fake->control("PATCH", "repos/octo/web", {{"pr_refused", true}});
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  EXPECT_EQ(u["state"], "failed");
  std::string id = u["id"];
  std::string reason = u["reason"];
  EXPECT_NE(reason.find("was pushed, but the pull request was not opened"), std::string::npos)
      << reason;
  EXPECT_NE(reason.find("awaywork apply " + id), std::string::npos) << reason;
  EXPECT_EQ(comment_bodies(n).size(), 1u);  // no comment posted after the failed PR

  fake->control("PATCH", "repos/octo/web", {{"pr_refused", false}});
  Captured a = aw({"apply", id, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["posted"], (nlohmann::json{"pull", "comment-1"})) << j.dump(2);
  auto pulls = get("/repos/octo/web/pulls?state=all");
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0]["head"]["ref"], "awaywork/" + id);
}

TEST_F(ForgeFailure, ALaterApplyEndsTheProgressCommentAsRunWould) {
  int64_t n = issue("octo", "t", "b");
  fake->control("PATCH", "repos/octo/web", {{"pr_refused", true}});
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  std::string id = u["id"];
  auto progress = [&] {
    std::vector<std::string> found;
    for (const auto& b : comment_bodies(n))
      if (b.find("item=progress") != std::string::npos) found.push_back(b);
    EXPECT_EQ(found.size(), 1u) << "one progress comment per unit";
    return found.empty() ? std::string() : found[0];
  };
  EXPECT_NE(progress().find("Ended: failed"), std::string::npos) << progress();

  // Still refused: the comment says the apply failed, and why.
  Captured failed = aw({"apply", id});
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(progress().find("Ended: failed (apply: "), std::string::npos) << progress();
  EXPECT_NE(progress().find("the pull request was not opened"), std::string::npos) << progress();

  fake->control("PATCH", "repos/octo/web", {{"pr_refused", false}});
  Captured a = aw({"apply", id, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  std::string url = nlohmann::json::parse(a.out)["pull_request"];
  ASSERT_FALSE(url.empty());
  EXPECT_NE(progress().find("Done: draft pull request " + url), std::string::npos) << progress();
  EXPECT_NE(progress().find("unit `" + id + "`, agent `test`"), std::string::npos) << progress();

  // Applied again: the comment already says so, nothing is written.
  size_t before = fake->writes().size();
  Captured again = aw({"apply", id});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
}

TEST_F(ForgeFailure, DraftsRefusedGiveTheCompareLinkNotAReadyPullRequest) {
  int64_t n = issue("octo", "t", "b");
  fake->control("PATCH", "repos/octo/web", {{"drafts_allowed", false}});
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  EXPECT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_TRUE(get("/repos/octo/web/pulls?state=all").empty());
  bool compare = false;
  for (const auto& b : comment_bodies(n))
    compare = compare || (b.find("/compare/main...awaywork/") != std::string::npos &&
                          b.find("item=compare") != std::string::npos);
  EXPECT_TRUE(compare);
}

}  // namespace
}  // namespace aw::test
