// Issue 29 item 7: `watch` on a GitLab project reads a reviewer's "Request changes" on awaywork's
// merge request (GitLab's system note "requested changes", written as the reviewer) as GitHub's
// review requesting changes: a Developer's starts one follow-up, which asks them for review again
// after its push (the reviewers API shows them unreviewed), and the next pass starts nothing; a
// Guest's is refused; a user's note that only reads "requested changes" is no request.
#include <gtest/gtest.h>

#include "watch_gitlab_fixture.h"

namespace aw::test {
namespace {

class WatchGitlabReviewTest : public WatchGitlabMrTest {
 protected:
  std::string mr_path() const {
    return "projects/" + kProject + "/merge_requests/" + std::to_string(mr);
  }

  void review(const std::string& user, const std::string& state) {
    ASSERT_TRUE(
        fake->control("POST", mr_path() + "/reviewers", {{"username", user}, {"state", state}})
            .is_object())
        << fake->error();
  }

  std::string state_of(const std::string& user) {
    auto r = fake->api(
        "GET", "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(mr) + "/reviewers",
        token);
    EXPECT_EQ(r.status, 200) << r.body.dump(2);
    for (const auto& v : r.body)
      if (v["user"]["username"] == user) return v["state"];
    return "";
  }
};

TEST_F(WatchGitlabReviewTest, ADevelopersRequestForChangesStartsOneFollowUpAndAsksThemAgain) {
  review("dev", "requested_changes");
  nlohmann::json log = watch_once("a");
  auto admitted = mr_events(log, "trigger_admitted");
  ASSERT_EQ(admitted.size(), 1u) << log.dump(1);
  EXPECT_EQ(admitted[0]["kind"], "review");
  EXPECT_EQ(admitted[0]["actor"], "dev");
  ASSERT_EQ(mr_events(log, "unit_spawned").size(), 1u) << log.dump(1);
  auto ended = mr_events(log, "follow_up_ended");
  ASSERT_EQ(ended.size(), 1u) << log.dump(1);
  ASSERT_EQ(ended[0]["state"], "done") << ended[0].dump(1);
  EXPECT_EQ(git("rev-parse " + branch + "^"), first_commit) << "one fast-forward commit";
  EXPECT_EQ(state_of("dev"), "unreviewed") << "asked for review again";

  nlohmann::json again = watch_once("a");
  EXPECT_TRUE(mr_events(again, "trigger_admitted").empty()) << again.dump(1);
  EXPECT_TRUE(mr_events(again, "unit_spawned").empty()) << again.dump(1);
}

TEST_F(WatchGitlabReviewTest, AGuestsRequestForChangesAndAUsersLookalikeNoteStartNothing) {
  review("guest", "requested_changes");
  discuss("dev", "requested changes");  // a user's note, not GitLab's: no review
  nlohmann::json log = watch_once("a");
  auto refused = mr_events(log, "trigger_refused");
  ASSERT_EQ(refused.size(), 1u) << log.dump(1);
  EXPECT_EQ(refused[0]["actor"], "guest");
  EXPECT_EQ(refused[0]["kind"], "review");
  EXPECT_TRUE(mr_events(log, "trigger_admitted").empty()) << log.dump(1);
  for (const auto& l : log) EXPECT_NE(l.value("event", ""), "unit_spawned") << l.dump();
  EXPECT_EQ(git("rev-parse refs/heads/" + branch), first_commit);
  EXPECT_EQ(state_of("guest"), "requested_changes");
}

}  // namespace
}  // namespace aw::test
