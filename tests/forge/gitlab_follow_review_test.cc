// A merge request's follow-up on GitLab, after its run (issue 29 item 7): a reviewer's request for
// changes (the reviewers API's requested_changes) asks for a follow-up as GitHub's review does and
// is asked for review again after the push; `apply ID` of a follow-up finishes its publish on the
// merge request's branch and posts nothing twice; `run --pr app!N --artifact DIR` holds one and
// `apply --from DIR` publishes it there.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "forge/gitlab/mr_source.h"
#include "forge/gitlab/text.h"

#include "gitlab_mr_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

TEST(GitlabChangeRequests, OnlyARequestForChangesIsAReviewRequestingChanges) {
  auto reviewer = [](const std::string& login, int64_t id, const std::string& state) {
    GitLabReviewer r;
    r.user.user.login = login;
    r.user.id = id;
    r.state = state;
    r.created_at = "2026-12-01T10:00:00.000Z";
    return r;
  };
  auto got = gitlab_change_requests(
      {reviewer("maint", 7, "requested_changes"), reviewer("dev", 8, "reviewed"),
       reviewer("ann", 9, "approved"), reviewer("bob", 10, "unreviewed")},
      "2026-12-06T08:00:00Z");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].author.login, "maint");
  EXPECT_EQ(got[0].state, "CHANGES_REQUESTED");
  EXPECT_TRUE(got[0].body.empty()) << "the reviewer's words are their notes";
  // Dated now: GitLab gives no time for the state's change (created_at is when they were added).
  EXPECT_EQ(got[0].submitted_at, "2026-12-06T08:00:00Z");
}

class GitlabMrReviewTest : public GitlabMrTest {
 protected:
  std::string mr_path() const {
    return "projects/" + kProject + "/merge_requests/" + std::to_string(mr);
  }

  // `user` submits a review of awaywork's merge request ending in `state`.
  void review(const std::string& user, const std::string& state) {
    ASSERT_TRUE(
        fake->control("POST", mr_path() + "/reviewers", {{"username", user}, {"state", state}})
            .is_object())
        << fake->error();
  }

  // The reviewers API as GitLab answers it: username -> state.
  std::map<std::string, std::string> reviewers() {
    std::map<std::string, std::string> out;
    auto r = fake->api(
        "GET", "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(mr) + "/reviewers",
        token);
    EXPECT_EQ(r.status, 200) << r.body.dump(2);
    for (const auto& v : r.body) out[v["user"]["username"]] = v["state"];
    return out;
  }

  // awaywork's writes on the merge request since the log's entry `from`.
  std::vector<std::string> mr_writes_since(size_t from) {
    std::vector<std::string> out;
    auto w = fake->writes();
    for (size_t i = from; i < w.size(); ++i)
      if (w[i]["path"].get<std::string>().find("/merge_requests/") != std::string::npos)
        out.push_back(w[i]["method"].get<std::string>() + " " + w[i]["path"].get<std::string>());
    return out;
  }
};

// GitLab's "Request changes" alone (no thread, no command) starts a follow-up, as a GitHub review
// requesting changes does; after the push the reviewer is asked for review again (their review
// unreviewed once more, GitLab's system note naming them); another reviewer's review is left as
// it is; a Guest's request for changes is nobody's.
TEST_F(GitlabMrReviewTest, ARequestForChangesStartsAFollowUpAndTheReviewerIsAskedAgain) {
  open_mr();
  review("maint", "requested_changes");
  review("dev", "reviewed");
  review("guest", "requested_changes");
  discuss(mr, "maint", "MAINT-SAYS: spell it in capitals.");
  write_agent(
      "cat > \"$AWAYWORK_OUTPUTS/task.txt\"\n"
      "printf 'BRAVO\\nline two\\n' > b.txt");
  auto u = run_json({"run", "--pr", "app!" + std::to_string(mr), "--json"});
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string commit = u["commit"];
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), commit);
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first_commit);
  std::string task = read_file(u["run_dir"].get<std::string>() + "/outputs/task.txt").value_or("");
  EXPECT_NE(task.find("MAINT-SAYS: spell it in capitals."), std::string::npos) << task;
  bool noted = false;
  for (const auto& n : u["notes"]) noted = noted || n == "review to request again from: maint";
  EXPECT_TRUE(noted) << u.dump(2);

  auto now = reviewers();
  EXPECT_EQ(now["maint"], "unreviewed") << "asked for review again";
  EXPECT_EQ(now["dev"], "reviewed") << "not asked: they requested no changes";
  EXPECT_EQ(now["guest"], "requested_changes") << "not admitted: nobody's request";
  bool asked = false;
  for (const auto& n : fake->api("GET",
                                 "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(mr) +
                                     "/notes?per_page=100",
                                 token)
                           .body)
    asked = asked || (n["system"] == true && n["author"]["username"] == "aw-bot" &&
                      n["body"] == "requested review from @maint");
  EXPECT_TRUE(asked);

  // `apply ID` again: the branch is there, the reviewer asked already: nothing is written on the
  // merge request.
  size_t before = fake->writes().size();
  Captured again = aw({"apply", u["id"].get<std::string>(), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto k = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(k.is_discarded()) << again.out;
  EXPECT_EQ(k["already_applied"], true) << k.dump(2);
  EXPECT_TRUE(k["posted"].empty()) << k.dump(2);
  std::string already = k["already"].dump();
  EXPECT_NE(already.find("review-request"), std::string::npos) << k.dump(2);
  for (const std::string& w : mr_writes_since(before))
    if (w.find("/notes/") == std::string::npos)  // the progress note's edit is the apply's own
      ADD_FAILURE() << "a second apply wrote on the merge request: " << w;
  EXPECT_EQ(reviewers()["maint"], "unreviewed");
}

TEST_F(GitlabMrReviewTest, AGuestsRequestForChangesAloneStartsNothing) {
  open_mr();
  review("guest", "requested_changes");
  size_t before = fake->writes().size();
  Captured c = aw({"run", "--pr", "app!" + std::to_string(mr)});
  EXPECT_NE(c.exit_code, 0);
  EXPECT_NE(c.err.find("nothing to follow up"), std::string::npos) << c.err;
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
  EXPECT_EQ(reviewers()["guest"], "requested_changes");
}

// A publish cut short after its push (GitLab answered 502 to the first reply): `apply ID` reads
// the merge request again and finishes it on the same branch: no second commit, no new merge
// request, the reply and the review request; applied again, it writes nothing.
TEST_F(GitlabMrReviewTest, ApplyOfAFollowUpFinishesItsPublishOnTheBranchAndIsIdempotent) {
  open_mr();
  review("maint", "requested_changes");
  std::string d1 = discuss(mr, "maint", "Say BRAVO.", "b.txt", 1);
  ASSERT_FALSE(d1.empty());
  write_agent("printf 'BRAVO\\nline two\\n' > b.txt");
  ASSERT_TRUE(fake->faults({{"server_errors", 1},
                            {"status", 502},
                            {"on", "POST /projects/grp%2Fsub%2Fapp/merge_requests/" +
                                       std::to_string(mr) + "/discussions/"}})
                  .is_object())
      << fake->error();
  auto u = run_json({"run", "--pr", "app!" + std::to_string(mr), "--json"});
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "failed") << u.dump(2);
  std::string id = u["id"];
  std::string pushed = fake_git("rev-parse refs/heads/" + branch);
  ASSERT_EQ(fake_git("rev-parse " + branch + "^"), first_commit) << "the commit was pushed";
  ASSERT_TRUE(replies_in(mr, d1).empty());
  ASSERT_EQ(reviewers()["maint"], "requested_changes") << "the publish stopped before it";

  Captured a = aw({"apply", id, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto j = json::parse(a.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << a.out;
  EXPECT_EQ(j["already_applied"], true) << j.dump(2);
  EXPECT_EQ(j["commit"], pushed);
  EXPECT_EQ(j["branch"], branch);
  EXPECT_EQ(j["posted"].size(), 2u) << j.dump(2);  // the reply, the review request
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), pushed);
  auto replies = replies_in(mr, d1);
  ASSERT_EQ(replies.size(), 1u) << discussions(mr).dump(2);
  EXPECT_NE(replies[0].find(pushed.substr(0, 12)), std::string::npos) << replies[0];
  EXPECT_FALSE(has_quick_action(replies[0]));
  EXPECT_EQ(reviewers()["maint"], "unreviewed");
  EXPECT_EQ(fake->control("GET", "projects/" + kProject + "/merge_requests").size(), 1u)
      << "no new merge request";

  size_t before = fake->writes().size();
  Captured again = aw({"apply", id, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto k = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(k.is_discarded()) << again.out;
  EXPECT_TRUE(k["posted"].empty()) << k.dump(2);
  EXPECT_EQ(k["already"].size(), 2u) << k.dump(2);
  EXPECT_EQ(replies_in(mr, d1).size(), 1u);
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), pushed);
  for (const std::string& w : mr_writes_since(before))
    if (w.find("/notes/") == std::string::npos)
      ADD_FAILURE() << "a second apply wrote on the merge request: " << w;
}

// `apply --from DIR` of a follow-up whose merge request is now on another branch than the one the
// unit was made on: refused, naming both, and nothing is pushed or posted.
TEST_F(GitlabMrReviewTest, ApplyRefusesAMergeRequestNowOnAnotherBranch) {
  open_mr();
  std::string d1 = discuss(mr, "dev", "Say BRAVO.", "b.txt", 1);
  write_agent("printf 'BRAVO\\nline two\\n' > b.txt");
  std::string artifact = tmp.path + "/artifact";
  auto u = run_json({"run", "--pr", "app!" + std::to_string(mr), "--artifact", artifact, "--json"});
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  fake_git("branch other " + branch);
  ASSERT_TRUE(fake->control("PATCH", mr_path(), {{"source_branch", "other"}}).is_object())
      << fake->error();
  size_t before = fake->writes().size();
  Captured a = aw({"apply", "--from", artifact, "--json"});
  EXPECT_NE(a.exit_code, 0) << a.out << a.err;
  EXPECT_NE(a.err.find("is on branch other now, not on " + branch), std::string::npos) << a.err;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit);
  EXPECT_EQ(fake_git("rev-parse refs/heads/other"), first_commit);
  EXPECT_TRUE(replies_in(mr, d1).empty());
  EXPECT_EQ(fake->writes().size(), before) << fake->writes().dump(2);
}

// `run --pr app!N --artifact DIR` (the agent job of a CI that runs the agent apart): checked and
// held, nothing written on GitLab (no commit, no reply, no review request, no progress note);
// `apply --from DIR` publishes it on the merge request's branch as the run would have; a second
// `apply --from` writes nothing more.
TEST_F(GitlabMrReviewTest, ARunPrArtifactIsHeldAndApplyFromPublishesItOnTheBranch) {
  open_mr();
  review("maint", "requested_changes");
  std::string d1 = discuss(mr, "maint", "Say BRAVO.", "b.txt", 1);
  write_agent("printf 'BRAVO\\nline two\\n' > b.txt");
  std::string artifact = tmp.path + "/artifact";
  size_t writes_before = fake->writes().size();
  Captured c = aw({"run", "--pr", "app!" + std::to_string(mr), "--artifact", artifact, "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  auto u = json::parse(c.out, nullptr, false);
  ASSERT_FALSE(u.is_discarded()) << c.out;
  EXPECT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_EQ(u["verdict"], "accepted") << u.dump(2);
  for (const char* f : {"manifest.json", "patch.diff", "verdict.json", "record.json"})
    EXPECT_EQ(sh("test -f " + sq(artifact + "/" + f) + " && echo yes"), "yes") << f;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit) << "held: nothing pushed";
  EXPECT_TRUE(replies_in(mr, d1).empty());
  EXPECT_EQ(reviewers()["maint"], "requested_changes");
  auto writes = fake->writes();
  for (size_t w = writes_before; w < writes.size(); ++w)
    ADD_FAILURE() << "the held follow-up wrote on GitLab: " << writes[w].dump();

  Captured a = aw({"apply", "--from", artifact, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto j = json::parse(a.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << a.out;
  EXPECT_EQ(j["branch"], branch) << j.dump(2);
  std::string commit = fake_git("rev-parse refs/heads/" + branch);
  EXPECT_EQ(j["commit"], commit);
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first_commit) << "one fast-forward commit";
  EXPECT_EQ(fake_git("show " + branch + ":b.txt"), "BRAVO\nline two");
  EXPECT_EQ(fake->control("GET", "projects/" + kProject + "/merge_requests").size(), 1u)
      << "no new merge request";
  EXPECT_EQ(replies_in(mr, d1).size(), 1u);
  EXPECT_EQ(reviewers()["maint"], "unreviewed");

  Captured again = aw({"apply", "--from", artifact, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  auto k = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(k.is_discarded()) << again.out;
  EXPECT_EQ(k["already_applied"], true) << k.dump(2);
  EXPECT_TRUE(k["posted"].empty()) << k.dump(2);
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), commit);
  EXPECT_EQ(replies_in(mr, d1).size(), 1u);
}

}  // namespace
}  // namespace aw::test
