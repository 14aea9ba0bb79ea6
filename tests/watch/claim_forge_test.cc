// claim_issue against the fake GitHub (tests/fakes/fake_github.py, a FAKE): the issue keeps one
// comment of awaywork's per trigger. A claim that loses the race is deleted; a claim whose answer
// was lost is known by the next attempt (host, pid, time) and taken up again, while a claim of
// the same host by another pid is not; the ended claim of a requeued issue is replaced.
#include <gtest/gtest.h>

#include <ctime>
#include <functional>

#include "../fakes/fake_github.h"
#include "../git/git_fixture.h"
#include "forge/session.h"
#include "watch/claim.h"
#include "watch/watch_forge.h"

namespace aw::test {
namespace {

using nlohmann::json;

// The real transport, with a hook before each request and, on demand, the answer to a comment's
// POST lost after the fake carried it out (as a connection cut at the wrong moment does). Only
// the comment's: the claim's label goes first, and losing that answer ends the claim before any
// comment is posted.
class HookedTransport : public Transport {
 public:
  explicit HookedTransport(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
  std::function<void(const HttpRequest&)> before;
  bool lose_post_answers = false;
  Result<HttpResponse> send(const HttpRequest& req) override {
    if (before) before(req);
    auto r = inner_->send(req);
    if (lose_post_answers && req.method == "POST" && req.target.ends_with("/comments"))
      return fail("GitHub POST {}: the connection was cut (test)", req.target);
    return r;
  }

 private:
  std::unique_ptr<Transport> inner_;
};

class ClaimForge : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitHub> fake;
  std::unique_ptr<ForgeSession> session;
  HookedTransport* hooked = nullptr;  // owned by the session's client
  int64_t issue = 0;
  std::string owner_token;
  Claimant me{"box-a", 4242};
  std::function<bool(const ForgeUser&)> trusted = [](const ForgeUser& u) {
    return u.login == "aw-bot";
  };

  void SetUp() override {
    fake = std::make_unique<FakeGitHub>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->why();
    owner_token = fake->user("octo");
    std::string token = fake->user("aw-bot");
    fake->control("POST", "repos", {{"owner", "octo"}, {"name", "web"}});
    fake->control("PUT", "repos/octo/web/collaborators/aw-bot", {{"permission", "write"}});
    issue = fake->control("POST", "repos/octo/web/issues", {{"title", "t"}, {"body", "b"}})
                .value("number", int64_t{0});
    auto transport = beast_transport(TransportOptions{
        fake->api_url(), "", std::chrono::milliseconds(10000), std::chrono::milliseconds(60000)});
    ASSERT_TRUE(transport) << transport.error().message;
    auto h = std::make_unique<HookedTransport>(std::move(*transport));
    hooked = h.get();
    GitHubOptions opt;
    opt.api_url = fake->api_url();
    opt.credential = "GH_TOKEN";
    session.reset(new ForgeSession{
        {}, "octo/web", token, GitHub(opt, token, std::move(h), system_clock()), "aw-bot", {}, {}});
  }

  // A comment posted by awaywork's login (as another watcher, or an earlier run, would).
  int64_t post_as_awaywork(const std::string& body) {
    return fake
        ->control("POST", "repos/octo/web/issues/" + std::to_string(issue) + "/comments",
                  {{"user", "aw-bot"}, {"body", body}})
        .value("id", int64_t{0});
  }
  json comments() {
    auto [status, body] = fake->api(
        "GET", "/repos/octo/web/issues/" + std::to_string(issue) + "/comments", owner_token);
    EXPECT_EQ(status, 200) << body.dump();
    return body;
  }
  static int64_t now() { return static_cast<int64_t>(::time(nullptr)); }
};

TEST_F(ClaimForge, AClaimThatLosesTheRaceIsDeleted) {
  // Another watcher posts its claim just before ours: it is the earlier one and wins.
  Claimant other{"box-b", 7};
  int64_t t = now();
  bool raced = false;
  hooked->before = [&](const HttpRequest& req) {
    if (req.method == "POST" && req.target.ends_with("/comments") && !raced) {
      raced = true;
      post_as_awaywork(claim_body(other, t, "active", "Status: starting."));
    }
  };
  auto c = claim_issue(*session, issue, me, 3600, t, 0, trusted);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->won);
  EXPECT_NE(c->comment_id, 0);  // posted, then lost
  EXPECT_EQ(c->winner.host, "box-b");
  json list = comments();
  ASSERT_EQ(list.size(), 1u) << list.dump(1);
  EXPECT_NE(list[0]["body"].get<std::string>().find("host=box-b"), std::string::npos);
}

TEST_F(ClaimForge, AClaimWhoseAnswerWasLostIsTakenUpAgainByTheNextAttempt) {
  int64_t t = now();
  Claimant recorded;
  int64_t recorded_since = 0;
  hooked->lose_post_answers = true;
  auto first = claim_issue(*session, issue, me, 3600, t, 0, trusted, {}, [&] {
    recorded = me;
    recorded_since = t;
  });
  ASSERT_FALSE(first);  // the claim was posted, its answer lost
  hooked->lose_post_answers = false;
  json list = comments();
  ASSERT_EQ(list.size(), 1u) << list.dump(1);
  int64_t orphan = list[0]["id"];
  ASSERT_EQ(recorded.pid, me.pid);

  // The same host, another pid (another watcher with the same host name): not ours, it holds.
  OwnClaims not_ours{0, {me.host, me.pid + 1}, recorded_since};
  auto other =
      claim_issue(*session, issue, {me.host, me.pid + 1}, 3600, t + 5, 0, trusted, not_ours);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_FALSE(other->won);
  EXPECT_EQ(other->comment_id, 0);
  EXPECT_EQ(comments().size(), 1u);

  // The next attempt of this watcher (or of its next run: a new pid) knows it as its own and,
  // since every other watcher yields to it, takes it up instead of posting another.
  Claimant next_run{me.host, me.pid + 100};
  auto again = claim_issue(*session, issue, next_run, 3600, t + 10, 0, trusted,
                           {0, recorded, recorded_since});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->won);
  EXPECT_TRUE(again->resumed);
  EXPECT_EQ(again->comment_id, orphan);
  EXPECT_EQ(again->since, t);
  list = comments();
  ASSERT_EQ(list.size(), 1u) << list.dump(1);
  std::string body = list[0]["body"];
  EXPECT_NE(body.find("pid=" + std::to_string(next_run.pid) + " state=active"), std::string::npos)
      << body;
}

TEST_F(ClaimForge, TheEndedClaimOfARequeuedIssueIsReplacedByTheNewOne) {
  int64_t t = now();
  int64_t ended = post_as_awaywork(
      claim_body(me, t - 60, "ended", "Stopped: watch was shut down (unit `u1` interrupted)."));
  // Unknown to the slot, an ended claim of ours is history and stays.
  int64_t history = post_as_awaywork(claim_body(me, t - 3000, "ended", "Done: unit `u0`."));
  auto c = claim_issue(*session, issue, me, 3600, t, 0, trusted, {ended, {}, 0});
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->won);
  EXPECT_FALSE(c->resumed);
  EXPECT_TRUE(c->left.empty()) << c->left;
  json list = comments();
  ASSERT_EQ(list.size(), 2u) << list.dump(1);
  EXPECT_EQ(list[0]["id"], history);
  EXPECT_EQ(list[1]["id"], c->comment_id);
}

// Issue 26: a follow-up's claim (on the pull request's conversation, through WatchForge::changes)
// yields to any claim of its trigger batch by another watcher, ended too (that batch has run),
// and puts no label on; a new batch is claimed.
TEST_F(ClaimForge, AFollowUpYieldsToTheEndedClaimOfItsBatchAndClaimsANewOne) {
  int64_t t = now();
  std::unique_ptr<WatchForge> changes = github_watch_forge(*session)->changes();
  int64_t theirs = post_as_awaywork(claim_body({"box-b", 7, "review_comment-5"}, t - 60, "ended",
                                               "Ended: follow-up unit `u1`: done."));
  auto same = claim_follow_up(*changes, issue, {"box-a", 4242, "review_comment-5"}, 3600, t,
                              trusted);
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_FALSE(same->won);
  EXPECT_EQ(same->comment_id, 0);  // nothing posted
  EXPECT_EQ(same->winner.comment_id, theirs);
  EXPECT_EQ(comments().size(), 1u);

  // A yielded claim of the same batch held nothing: it stops nobody.
  post_as_awaywork(claim_body({"box-c", 9, "review_comment-7"}, t - 30, "yielded", "Yielded."));
  auto next = claim_follow_up(*changes, issue, {"box-a", 4242, "review_comment-7"}, 3600, t,
                              trusted);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_TRUE(next->won);
  json list = comments();
  ASSERT_EQ(list.size(), 3u) << list.dump(1);
  EXPECT_EQ(list[2]["id"], next->comment_id);
  EXPECT_TRUE(list[2]["body"].get<std::string>().ends_with(
      "<!-- awaywork:claim host=box-a pid=4242 state=active key=review_comment-7 -->"))
      << list[2].dump();
  auto [status, got] =
      fake->api("GET", "/repos/octo/web/issues/" + std::to_string(issue), owner_token);
  ASSERT_EQ(status, 200) << got.dump();
  EXPECT_TRUE(got["labels"].empty()) << got.dump();

  // While it is live, another watcher's new batch waits: one follow-up at a time.
  auto later = claim_follow_up(*changes, issue, {"box-b", 7, "review_comment-8"}, 3600, t + 5,
                               trusted);
  ASSERT_TRUE(later) << later.error().message;
  EXPECT_FALSE(later->won);
  EXPECT_EQ(later->winner.comment_id, next->comment_id);
}

}  // namespace
}  // namespace aw::test
