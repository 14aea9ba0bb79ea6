// End to end against the fake GitHub with real git and the awaywork binary: a labelled issue ->
// run --issue -> the branch in the fake's git, a draft pull request with the footer and marker,
// the comment and allowed labels, the progress comment ended with the link; apply again posts
// nothing; every write is awaywork's login.
#include "forge_fixture.h"

namespace aw::test {
namespace {

std::string requests_agent() {
  return "printf 'bravo\\n' > b.txt\n"
         "cat > \"$AWAYWORK_OUTPUTS/requests.jsonl\" <<'EOF'\n"
         "{\"type\":\"create_pull_request\",\"title\":\"Add b\",\"body\":\"Adds b.txt.\"}\n"
         "{\"type\":\"add_comment\",\"body\":\"I added b.txt.\"}\n"
         "{\"type\":\"add_labels\",\"labels\":[\"needs-review\"]}\n"
         "EOF";
}

class ForgeE2E : public ForgeTest {
 protected:
  void SetUp() override {
    extra_repo_keys =
        "    bounds:\n      requests: {add_labels: {max: 2, allowed: [needs-review]}}\n";
    ForgeTest::SetUp();
    write_agent(requests_agent());
  }
};

TEST_F(ForgeE2E, AnIssueBecomesADraftPullRequestCommentAndLabelsOnce) {
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.", {"awaywork"});
  ASSERT_GT(n, 0);
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string id = u["id"];
  std::string branch = "awaywork/" + id;
  EXPECT_EQ(u["issue"], n);
  EXPECT_EQ(u["forge_repo"], "octo/web");

  // The branch is in the fake's git, with the agent's change.
  std::string commit = u["commit"];
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), commit);
  EXPECT_EQ(fake_git("show " + branch + ":b.txt"), "bravo");

  // A draft pull request with that head, the agent's title, awaywork's footer and marker.
  auto pulls = get("/repos/octo/web/pulls?state=all");
  ASSERT_EQ(pulls.size(), 1u) << pulls.dump(2);
  const auto& pr = pulls[0];
  EXPECT_TRUE(pr["draft"].get<bool>());
  EXPECT_EQ(pr["head"]["ref"], branch);
  EXPECT_EQ(pr["head"]["sha"], commit);
  EXPECT_EQ(pr["title"], "Add b");
  std::string body = pr["body"];
  EXPECT_NE(body.find("Adds b.txt."), std::string::npos) << body;
  EXPECT_NE(body.find("unit `" + id + "`"), std::string::npos) << body;
  EXPECT_NE(body.find("agent `test`"), std::string::npos) << body;
  EXPECT_NE(body.find("For #" + std::to_string(n)), std::string::npos) << body;
  EXPECT_EQ(body.find("Closes"), std::string::npos) << body;
  EXPECT_NE(body.find("<!-- awaywork:unit=" + id + " item=pull sha=" + commit + " -->"),
            std::string::npos)
      << body;
  EXPECT_EQ(u["pull_request"], pr["html_url"]);

  // The comment and the allowed label; the progress comment ends with the link.
  auto comments = get("/repos/octo/web/issues/" + std::to_string(n) + "/comments");
  ASSERT_EQ(comments.size(), 2u) << comments.dump(2);
  std::string progress, said;
  for (const auto& c : comments) {
    EXPECT_EQ(c["user"]["login"], "aw-bot");
    std::string b = c["body"];
    if (b.find("item=progress") != std::string::npos) progress = b;
    if (b.find("item=comment-1") != std::string::npos) said = b;
  }
  EXPECT_NE(progress.find("Done: draft pull request " + pr["html_url"].get<std::string>()),
            std::string::npos)
      << progress;
  EXPECT_NE(said.find("I added b.txt."), std::string::npos) << said;
  auto labels = get("/repos/octo/web/issues/" + std::to_string(n))["labels"];
  std::vector<std::string> names;
  for (const auto& l : labels) names.push_back(l["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "needs-review"), names.end());

  // Every write came from awaywork's login; apply again posts nothing new.
  auto writes = fake->writes();
  for (const auto& w : writes) EXPECT_EQ(w["login"], "aw-bot") << w.dump();
  size_t before = writes.size();
  Captured again = aw({"apply", id, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto a = nlohmann::json::parse(again.out);
  EXPECT_TRUE(a["posted"].empty()) << a.dump(2);
  EXPECT_EQ(a["pull_request"], pr["html_url"]);
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
}

TEST_F(ForgeE2E, ASecondUnitOnTheSameRemoteFetchesIntoTheMirror) {
  int64_t n = issue("octo", "One", "first");
  auto first = run_issue(n);
  ASSERT_EQ(first["state"], "done") << first.dump(2);
  std::string mirror = first["source"];
  EXPECT_NE(mirror.find("/state/mirrors/"), std::string::npos) << mirror;
  // A new commit on the remote reaches the second unit through the same mirror.
  std::string up = tmp.path + "/up";
  sh("git clone -q " + sq(tmp.path + "/fake-state/repos/octo/web.git") + " " + sq(up));
  sh("printf 'charlie\\n' > c.txt && git add c.txt && git commit -qm c && git push -q origin main",
     up);
  int64_t m = issue("octo", "Two", "second");
  auto second = run_issue(m);
  ASSERT_EQ(second["state"], "done") << second.dump(2);
  EXPECT_EQ(second["source"], mirror);
  EXPECT_EQ(second["base_commit"], sh("git rev-parse HEAD", up));
  EXPECT_NE(second["base_commit"], first["base_commit"]);
}

// A url: repository (no forge) is cloned through the same kind of mirror, with its credential
// through the askpass, and its branch goes back to that remote.
TEST_F(ForgeE2E, AUrlRepositoryClonesThroughAMirrorAndPublishesBack) {
  std::string url = fake->git_url() + "/octo/web.git";
  write_agent("printf 'bravo\\n' > b.txt");
  ASSERT_TRUE(write_file(config, slurp(config) + "  remote:\n    url: " + url +
                                     "\n    publish: {url: " + url + ", credential: GH_TOKEN}\n"));
  Captured c = aw({"run", "--repo", "remote", "--prompt", "add b", "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  auto u = nlohmann::json::parse(c.out);
  EXPECT_NE(u["source"].get<std::string>().find("/state/mirrors/"), std::string::npos);
  std::string branch = u["branch"];
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), u["commit"]);
}

}  // namespace
}  // namespace aw::test
