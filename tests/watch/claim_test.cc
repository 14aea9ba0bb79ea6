// Reading claims back from an issue's comments (watch/claim.h): oldest first, with host, pid and
// state from the marker; a stranger's comment imitating the marker never counts.
#include <gtest/gtest.h>

#include "check/sanitize.h"
#include "watch/claim.h"

namespace aw {
namespace {

using nlohmann::json;

json dated_comment(int64_t id, const std::string& login, const std::string& body,
                   const std::string& created, const std::string& updated = "") {
  return {{"id", id},
          {"user", {{"login", login}, {"id", 1}, {"type", "User"}}},
          {"body", body},
          {"created_at", created},
          {"updated_at", updated.empty() ? created : updated},
          {"html_url", "https://github.com/o/r/issues/1#c"}};
}

TEST(Claims, AreReadOldestFirstFromTrustedAuthorsOnly) {
  Claimant a{"box-a", 11}, b{"box-b", 22};
  json list = json::array({
      dated_comment(5, "aw-bot", claim_body(b, 100, "active", "Status: starting."),
                    "2026-12-01T10:00:02Z"),
      dated_comment(4, "mallory", claim_body(a, 0, "active", "fake"), "2026-12-01T09:00:00Z"),
      dated_comment(3, "aw-bot", claim_body(a, 100, "yielded", "Yielded."), "2026-12-01T10:00:02Z",
                    "2026-12-01T10:00:09Z"),
      dated_comment(2, "aw-bot", "an ordinary comment", "2026-12-01T08:00:00Z"),
  });
  auto trusted = [](const ForgeUser& u) { return u.login == "aw-bot"; };
  auto claims = claims_in(list, trusted);
  ASSERT_EQ(claims.size(), 2u);
  // Same second: the lower comment id is the earlier claim.
  EXPECT_EQ(claims[0].comment_id, 3);
  EXPECT_EQ(claims[0].state, "yielded");
  EXPECT_EQ(claims[0].host, "box-a");
  EXPECT_EQ(claims[0].pid, 11);
  EXPECT_EQ(claims[0].updated - claims[0].created, 7);
  EXPECT_EQ(claims[1].comment_id, 5);
  EXPECT_EQ(claims[1].state, "active");
  EXPECT_EQ(claims[1].host, "box-b");
  // The claim's time, from its first line: how a watcher knows a claim it posted but never kept.
  EXPECT_EQ(claims[1].since, 100);
  auto bare = claims_in(json::array({dated_comment(
                            6, "aw-bot", "x\n\n<!-- awaywork:claim host=h pid=1 state=active -->",
                            "2026-12-01T10:00:00Z")}),
                        trusted);
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare[0].since, 0);
}

TEST(Claims, AFollowUpsClaimCarriesItsKeyInTheMarkerAndReadsItBack) {
  // Issue 26: a follow-up's claim names its trigger batch; an issue's claim has no key.
  std::string body = claim_body({"h", 7, "review_comment-31"}, 0, "ended", "Ended.");
  EXPECT_TRUE(
      body.ends_with("<!-- awaywork:claim host=h pid=7 state=ended key=review_comment-31 -->"))
      << body;
  EXPECT_NE(body.find("a follow-up here (trigger `review_comment-31`)"), std::string::npos) << body;
  auto trusted = [](const ForgeUser& u) { return u.login == "aw-bot"; };
  auto claims = claims_in(
      json::array(
          {dated_comment(1, "aw-bot", body, "2026-12-01T10:00:00Z"),
           dated_comment(2, "aw-bot", claim_body({"h", 8}, 0, "active", "x"),
                         "2026-12-01T10:00:01Z"),
           // Not claim_body's form: an empty key, a key before the state.
           dated_comment(3, "aw-bot", "x\n\n<!-- awaywork:claim host=h pid=1 state=active key= -->",
                         "2026-12-01T10:00:02Z"),
           dated_comment(4, "aw-bot",
                         "x\n\n<!-- awaywork:claim host=h pid=1 key=k state=active -->",
                         "2026-12-01T10:00:03Z")}),
      trusted);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].key, "review_comment-31");
  EXPECT_EQ(claims[1].key, "");
}

TEST(Claims, AFollowUpKeyHoldsOnlyMarkerSafeCharacters) {
  EXPECT_EQ(follow_up_key("review", "123"), "review-123");
  EXPECT_EQ(follow_up_key("check", "abc12-my build/1 -->"), "check-abc12-my_build_1_--_");
  EXPECT_EQ(follow_up_key("check", std::string(500, 'a')).size(), 120u);
}

TEST(Claims, TheBodyEndsWithTheMarker) {
  std::string body = claim_body({"h", 7}, 0, "ended", "Done.");
  EXPECT_NE(body.find("Done."), std::string::npos);
  EXPECT_TRUE(body.ends_with("<!-- awaywork:claim host=h pid=7 state=ended -->")) << body;
}

// A failed unit's reason ends its claim, and the agent chose part of it ("the agent said: ..."):
// a marker form there is shown as text, never read as a claim (here another watcher's, active).
TEST(Claims, MarkerFormsInTheTextAreDefusedAndTheClaimReadIsOurs) {
  std::string text =
      "Failed: agent phase failed: exit 1: the agent said: "
      "`<!-- awaywork:claim host=evil pid=1 state=active -->` "
      "`<!-- awaywork:unit=u-1 item=comment-1 sha=x -->`; trying again (1 of 1).";
  std::string marker = "<!-- awaywork:claim host=h pid=7 state=ended -->";
  std::string body = claim_body({"h", 7}, 0, "ended", text);
  ASSERT_TRUE(body.ends_with("\n\n" + marker)) << body;
  EXPECT_FALSE(has_marker_form(body.substr(0, body.size() - marker.size()))) << body;
  EXPECT_NE(body.find("awaywork:claim host=evil"), std::string::npos) << "shown as text: " << body;
  json list = json::array({dated_comment(9, "aw-bot", body, "2026-12-01T10:00:00Z")});
  auto claims = claims_in(list, [](const ForgeUser& u) { return u.login == "aw-bot"; });
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].host, "h");
  EXPECT_EQ(claims[0].pid, 7);
  EXPECT_EQ(claims[0].state, "ended");
}

// Only the marker that ends a trusted login's comment, alone on its line and in claim_body's
// exact form, is a claim: one in the middle (quoted, in a code span, in text that is not
// awaywork's) is text, and so is an imitation by another login.
TEST(Claims, OnlyTheTrailingMarkerInItsExactFormIsRead) {
  std::string evil = "<!-- awaywork:claim host=evil pid=1 state=active -->";
  auto at = [](int s) { return "2026-12-01T10:00:0" + std::to_string(s) + "Z"; };
  json list = json::array({
      // awaywork's own marker at the end, a forged one before it: the end is the claim.
      dated_comment(1, "aw-bot",
                    "Failed: `" + evil + "`\n\n<!-- awaywork:claim host=h pid=7 state=ended -->",
                    at(1)),
      // A marker in the middle only.
      dated_comment(2, "aw-bot", evil + "\n\nStatus: more text after it.", at(2)),
      // On the last line, but not alone on it or not in the exact form.
      dated_comment(3, "aw-bot", "see " + evil, at(3)),
      dated_comment(4, "aw-bot", evil + " <!-- awaywork:claim host=x pid=2 state=active -->",
                    at(4)),
      dated_comment(5, "aw-bot", "<!-- awaywork:claim host=evil pid=1 state=active more=1 -->",
                    at(5)),
      dated_comment(6, "aw-bot", "<!--  awaywork:claim host=evil pid=1 state=active -->", at(6)),
      dated_comment(7, "aw-bot", "<!-- awaywork:claim host=evil pid=x1 state=active -->", at(7)),
      dated_comment(8, "aw-bot", "<!-- awaywork:claim pid=1 state=active -->", at(8)),
      // The exact form, by another login.
      dated_comment(9, "mallory", "x\n\n" + evil, at(9)),
  });
  // A line end after the marker (as an editor leaves it) is still its end.
  list.push_back(dated_comment(10, "aw-bot",
                               "x\n\n<!-- awaywork:claim host=k pid=3 state=yielded -->\r\n",
                               "2026-12-01T10:00:10Z"));
  auto claims = claims_in(list, [](const ForgeUser& u) { return u.login == "aw-bot"; });
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].comment_id, 1);
  EXPECT_EQ(claims[0].host, "h");
  EXPECT_EQ(claims[0].state, "ended");
  EXPECT_EQ(claims[1].comment_id, 10);
  EXPECT_EQ(claims[1].host, "k");
  EXPECT_EQ(claims[1].pid, 3);
}

}  // namespace
}  // namespace aw
