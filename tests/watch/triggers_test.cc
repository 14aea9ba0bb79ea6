// Which events and comments are triggers (watch/triggers.h), judged by a stand-in admission: a
// label counts only when added, after what was handled, by an admitted actor; an assignment only
// to the configured login; a command comment only at its first character and never when edited.
#include <gtest/gtest.h>

#include "forge/ci_attempts.h"
#include "forge/marker.h"
#include "watch/triggers.h"
#include "watch/triggers_ci.h"

namespace aw {
namespace {

using nlohmann::json;

json user(const std::string& login, const std::string& type = "User") {
  return {{"login", login}, {"id", 1}, {"type", type}};
}

json labeled(int64_t id, const std::string& actor, const std::string& label,
             const std::string& event = "labeled") {
  return {{"id", id},
          {"event", event},
          {"actor", user(actor)},
          {"label", {{"name", label}}},
          {"created_at", "2026-12-01T10:00:00Z"}};
}

json comment(int64_t id, const std::string& author, const std::string& body, bool edited = false) {
  return {{"id", id},
          {"user", user(author)},
          {"body", body},
          {"created_at", "2026-12-01T10:00:00Z"},
          {"updated_at", edited ? "2026-12-01T10:05:00Z" : "2026-12-01T10:00:00Z"},
          {"html_url", "https://github.com/o/r/issues/1#c"}};
}

Admitted admit(const ForgeUser& u) {
  if (u.login == "writer") return {true, "role write"};
  return {false, "role read, not admitted"};
}

WatchRepoConfig spec() {
  WatchRepoConfig w;
  w.repo = "web";
  w.assignee = "aw-bot";
  return w;
}

TEST(Triggers, OnlyTheTriggerLabelAddedByAnAdmittedActorCounts) {
  json events = json::array({labeled(10, "writer", "bug"), labeled(11, "reader", "awaywork"),
                             labeled(12, "writer", "awaywork", "unlabeled"),
                             labeled(13, "writer", "AwayWork")});
  TriggerScan s = scan_triggers(spec(), events, nullptr, {}, admit);
  ASSERT_EQ(s.found.size(), 2u);
  EXPECT_FALSE(s.found[0].admitted);
  EXPECT_EQ(s.found[0].reason, "label added by @reader: role read, not admitted");
  EXPECT_TRUE(s.found[1].admitted);
  EXPECT_EQ(s.found[1].id, 13);
  EXPECT_EQ(s.seen.event, 13);
  EXPECT_TRUE(s.admitted());
}

TEST(Triggers, WhatWasHandledBeforeNeverCountsAgain) {
  json events = json::array({labeled(13, "writer", "awaywork")});
  TriggerScan s = scan_triggers(spec(), events, nullptr, Seen{13, 0}, admit);
  EXPECT_TRUE(s.found.empty());
  EXPECT_FALSE(s.admitted());
}

TEST(Triggers, AnAssignmentCountsOnlyToTheConfiguredLogin) {
  json a = {
      {"id", 20}, {"event", "assigned"}, {"actor", user("writer")}, {"assignee", user("someone")}};
  json b = {
      {"id", 21}, {"event", "assigned"}, {"actor", user("writer")}, {"assignee", user("aw-bot")}};
  TriggerScan s = scan_triggers(spec(), json::array({a, b}), nullptr, {}, admit);
  ASSERT_EQ(s.found.size(), 1u);
  EXPECT_EQ(s.found[0].kind, "assignment");
  EXPECT_TRUE(s.found[0].admitted);
}

TEST(Triggers, ACommandCommentCountsAtItsFirstCharacterAndNeverWhenEdited) {
  json comments = json::array(
      {comment(30, "writer", "please /awaywork"), comment(31, "writer", "/awaywork-ish"),
       comment(32, "writer", "/awaywork fix the tests", true), comment(33, "reader", "/awaywork"),
       comment(34, "writer", "/awaywork\nand the docs")});
  TriggerScan s = scan_triggers(spec(), nullptr, comments, {}, admit);
  ASSERT_EQ(s.found.size(), 3u);
  EXPECT_FALSE(s.found[0].admitted);
  EXPECT_NE(s.found[0].reason.find("edited"), std::string::npos) << s.found[0].reason;
  EXPECT_FALSE(s.found[1].admitted);
  EXPECT_TRUE(s.found[2].admitted);
  EXPECT_EQ(s.found[2].id, 34);
  EXPECT_EQ(s.seen.comment, 34);
}

TEST(Triggers, AnEmptyTriggerIsOff) {
  WatchRepoConfig w = spec();
  w.label.clear();
  w.command.clear();
  TriggerScan s = scan_triggers(w, json::array({labeled(1, "writer", "awaywork")}),
                                json::array({comment(2, "writer", "/awaywork")}), {}, admit);
  EXPECT_TRUE(s.found.empty());
  EXPECT_FALSE(is_command("/awaywork", ""));
}

// issue 26 item 1: what asks for a follow-up on a pull request.
json review(int64_t id, const std::string& author, const std::string& state) {
  return {{"id", id},
          {"user", user(author)},
          {"state", state},
          {"body", ""},
          {"submitted_at", "2026-12-01T10:00:00Z"}};
}

TEST(PullTriggers, AnAdmittedChangesRequestOrReviewCommentCountsNoOtherReview) {
  json reviews = json::array({review(1, "writer", "APPROVED"), review(2, "writer", "COMMENTED"),
                              review(3, "reader", "CHANGES_REQUESTED"),
                              review(4, "writer", "CHANGES_REQUESTED")});
  json review_comments =
      json::array({comment(20, "reader", "do X"), comment(21, "writer", "do Y")});
  TriggerScan s =
      scan_pull_triggers("/awaywork", reviews, review_comments, nullptr, {}, "aw-bot", admit);
  ASSERT_EQ(s.found.size(), 4u);
  EXPECT_EQ(s.found[0].kind, "review");
  EXPECT_FALSE(s.found[0].admitted);
  EXPECT_EQ(s.found[0].reason, "review requesting changes by @reader: role read, not admitted");
  EXPECT_TRUE(s.found[1].admitted);
  EXPECT_EQ(s.found[1].id, 4);
  EXPECT_FALSE(s.found[2].admitted);
  EXPECT_EQ(s.found[3].kind, "review_comment");
  EXPECT_TRUE(s.found[3].admitted);
  EXPECT_EQ(s.found[3].reason, "review comment by @writer: role write");
  EXPECT_EQ(s.seen.review, 4);
  EXPECT_EQ(s.seen.review_comment, 21);
  // Seen: nothing again.
  EXPECT_TRUE(
      scan_pull_triggers("/awaywork", reviews, review_comments, nullptr, s.seen, "aw-bot", admit)
          .found.empty());
}

TEST(PullTriggers, AwayworksOwnPostsArePassedOverAndEditsNeverTrigger) {
  json review_comments = json::array(
      {comment(30, "AW-Bot", "awaywork addressed this"), comment(31, "writer", "fix", true)});
  json comments = json::array(
      {comment(40, "aw-bot", "/awaywork go"), comment(41, "writer", "/awaywork again", true),
       comment(42, "writer", "thanks"), comment(43, "writer", "/awaywork")});
  TriggerScan s = scan_pull_triggers("/awaywork", json::array(), review_comments, comments, {},
                                     "aw-bot", admit);
  ASSERT_EQ(s.found.size(), 3u);
  EXPECT_FALSE(s.found[0].admitted);
  EXPECT_EQ(s.found[0].reason,
            "review comment by @writer was edited: an edited comment never triggers");
  EXPECT_FALSE(s.found[1].admitted);
  EXPECT_EQ(s.found[1].kind, "command");
  EXPECT_TRUE(s.found[2].admitted);
  EXPECT_EQ(s.found[2].id, 43);
  EXPECT_EQ(s.seen.comment, 43);
  EXPECT_EQ(s.seen.review_comment, 31);
}

// follow_ci (issue 26): a failing check is judged once per head; max_ci_attempts fixes in a row
// that leave it failing stop; a head on which it passes ends the count.
TEST(CiTriggers, AFailingCheckTriggersOncePerHeadAndStopsPastMaxAttempts) {
  CiState st;
  EXPECT_FALSE(judge_ci(st, "h0", {}, 2).trigger);  // passing (or still running): nothing
  CiVerdict first = judge_ci(st, "h0", {"build"}, 2);
  EXPECT_TRUE(first.trigger);
  EXPECT_EQ(first.check, "build");
  EXPECT_EQ(first.streak, 1);
  EXPECT_FALSE(judge_ci(st, "h0", {"build"}, 2).trigger);  // the same head: asked already
  EXPECT_TRUE(judge_ci(st, "h1", {"build"}, 2).trigger);   // the first fix failed: attempt 2
  CiVerdict stop = judge_ci(st, "h2", {"build"}, 2);       // the second fix failed too
  EXPECT_TRUE(stop.stop);
  EXPECT_FALSE(stop.trigger);
  EXPECT_EQ(stop.streak, 3);
  // A head where it passes ends the count; a later failure starts again.
  EXPECT_FALSE(judge_ci(st, "h3", {}, 2).trigger);
  CiVerdict again = judge_ci(st, "h4", {"build"}, 2);
  EXPECT_TRUE(again.trigger);
  EXPECT_EQ(again.streak, 1);
  // Another check failing on the same head is new: it asks too.
  CiVerdict lint = judge_ci(st, "h4", {"build", "lint"}, 2);
  EXPECT_TRUE(lint.trigger);
  EXPECT_EQ(lint.check, "lint");
  // Kept across restarts.
  auto back = ci_state_from_json(to_json(st), "test");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->head, "h4");
  EXPECT_EQ(back->streak.at("build"), 1);
  EXPECT_FALSE(ci_state_from_json(nlohmann::json::array(), "test"));
}

TEST(CiTriggers, ACheckNameIsWrittenInAPostOnlyAsPlainCharacters) {
  EXPECT_EQ(ci_name_for_post("ci / build (linux)"), "ci / build (linux)");
  EXPECT_EQ(ci_name_for_post("x`\n@all <!-- y -->"), "x???all ?" "?-- y --?");
  EXPECT_EQ(ci_name_for_post(std::string(300, 'a')).size(), 103u);
}

// follow_up.max_ci_attempts, the rule watch (heads, above) and run --pr (the record's follow-ups)
// share (forge/ci_attempts.h): max fixes in a row that each tried the still-failing check stop.
TEST(CiAttempts, TheSameCheckInTheTaskOfTheLastMaxFollowUpsInARowStops) {
  EXPECT_FALSE(ci_attempts_spent(0, 1));
  EXPECT_TRUE(ci_attempts_spent(1, 1));
  EXPECT_FALSE(ci_attempts_spent(2, 3));
  EXPECT_TRUE(ci_attempts_spent(3, 3));
  // No follow-up yet: nothing is spent, whatever fails.
  EXPECT_FALSE(ci_limit_reached({}, {"build"}, 1));
  // One follow-up tried build, build still fails: max 1 is spent, max 2 is not.
  auto one = ci_limit_reached({{"build"}}, {"build"}, 1);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->check, "build");
  EXPECT_EQ(one->fixes, 1);
  EXPECT_FALSE(ci_limit_reached({{"build"}}, {"build"}, 2));
  // It passes now: nothing to stop, however often it was tried.
  EXPECT_FALSE(ci_limit_reached({{"build"}, {"build"}, {"build"}}, {}, 2));
  EXPECT_FALSE(ci_limit_reached({{"build"}, {"build"}}, {"lint"}, 2));
  // In a row: a newer follow-up that did not quote it (a review's, or it passed then) ends the
  // count; only the newest ones count.
  EXPECT_FALSE(ci_limit_reached({{"build"}, {"build"}, {}}, {"build"}, 2));
  EXPECT_FALSE(ci_limit_reached({{"build"}, {"lint"}, {"build"}}, {"build"}, 2));
  auto two = ci_limit_reached({{}, {"build", "lint"}, {"lint", "build"}}, {"lint", "build"}, 2);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->check, "lint");  // the first of the failing ones
  EXPECT_EQ(two->fixes, 2);
  auto three = ci_limit_reached({{"build"}, {"build"}, {"build"}}, {"build"}, 2);
  ASSERT_TRUE(three);
  EXPECT_EQ(three->fixes, 3);
  // watch's count agrees: max 1 stops at the second failing head, the first fix's.
  CiState st;
  EXPECT_TRUE(judge_ci(st, "h0", {"build"}, 1).trigger);
  EXPECT_TRUE(judge_ci(st, "h1", {"build"}, 1).stop);
}

// The record note "failing checks in the task: a, b" is matched item by item, never by parts: a
// check's name is the workflow's text and may hold ", " or be part of another's.
TEST(CiAttempts, ACheckIsFoundInTheNotesListOnlyAsAWholeItem) {
  EXPECT_TRUE(named_in_check_list("build", "build"));
  EXPECT_TRUE(named_in_check_list("build, ci/lint", "build"));
  EXPECT_TRUE(named_in_check_list("build, ci/lint", "ci/lint"));
  EXPECT_TRUE(named_in_check_list("x, a, b, y", "a, b"));
  EXPECT_FALSE(named_in_check_list("build-linux, ci/lint", "build"));
  EXPECT_FALSE(named_in_check_list("prebuild", "build"));
  EXPECT_FALSE(named_in_check_list("ci/lint, build2", "build"));
  EXPECT_FALSE(named_in_check_list("build", ""));
  EXPECT_FALSE(named_in_check_list("", "build"));
  // Found past a part-match earlier in the list.
  EXPECT_TRUE(named_in_check_list("build2, build", "build"));
}

TEST(CiAttempts, TheLimitsCommentIsMarkedAsWatchMarksIt) {
  EXPECT_EQ(ci_limit_marker(7), "<!-- awaywork:follow-up pr=7 item=ci-limit -->");
  std::string said = ci_limit_comment("build", 1, 1);
  EXPECT_NE(said.find("`build`"), std::string::npos) << said;
  EXPECT_NE(said.find("failed on 2 heads of this pull request in a row, 1 after a fix"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("(follow_up: {max_ci_attempts: 1})"), std::string::npos) << said;
}

// run --pr's guard, shared by GitHub and GitLab (issue 26): not reached, nothing is posted;
// reached, the marked comment is posted once through the forge's post and the refusal says so;
// awaywork's own marked comment already there (not a stranger's copy of the marker) posts nothing
// more; a failed post is named in the refusal.
TEST(CiAttempts, TheSharedGuardPostsTheMarkedCommentOnceThroughTheForgesPost) {
  std::vector<std::pair<std::string, std::string>> posts;
  PostCiLimit post = [&](const std::string& text, const std::string& marker) -> Status {
    posts.emplace_back(text, marker);
    return {};
  };
  EXPECT_TRUE(within_ci_limit({{"build"}}, {"build"}, 2, 7, {}, "aw-bot", "merge request", post));
  EXPECT_TRUE(within_ci_limit({}, {"build"}, 1, 7, {}, "aw-bot", "merge request", post));
  EXPECT_TRUE(posts.empty());

  ForgeComment stranger;
  stranger.author.login = "mallory";
  stranger.body = "fake\n\n<!-- awaywork:follow-up pr=7 item=ci-limit -->";
  Status stop =
      within_ci_limit({{"build"}}, {"build"}, 1, 7, {stranger}, "aw-bot", "merge request", post);
  ASSERT_FALSE(stop);
  EXPECT_NE(stop.error().message.find("the check `build` still fails after 1 follow-up(s)"),
            std::string::npos)
      << stop.error().message;
  EXPECT_NE(stop.error().message.find("awaywork said so on the merge request"), std::string::npos)
      << stop.error().message;
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].first, ci_limit_comment("build", 1, 1));
  EXPECT_EQ(posts[0].second, ci_limit_marker(7));

  ForgeComment own;
  own.author.login = "AW-Bot";  // logins compare without case
  own.body = with_marker("said", ci_limit_marker(7));
  Status quiet = within_ci_limit({{"build"}}, {"build"}, 1, 7, {stranger, own}, "aw-bot",
                                 "pull request", post);
  ASSERT_FALSE(quiet);
  EXPECT_NE(quiet.error().message.find("said on the pull request already"), std::string::npos)
      << quiet.error().message;
  EXPECT_EQ(posts.size(), 1u);

  PostCiLimit broken = [](const std::string&, const std::string&) -> Status {
    return fail("HTTP 403");
  };
  Status failed =
      within_ci_limit({{"build"}}, {"build"}, 1, 7, {}, "aw-bot", "merge request", broken);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("saying so on the merge request failed: HTTP 403"),
            std::string::npos)
      << failed.error().message;
}

}  // namespace
}  // namespace aw
