// watch's state in the record database (record/watch_state.cc, watch/slot.h): values survive a
// reopen, a listing by prefix is a range (keys with _ and % are plain), an issue's slot
// round-trips every field. The issue-list poll's state (watch/poll_state.h): its ETag is kept with
// its since, never when an issue must be looked at again; a full page moves since on.
#include <gtest/gtest.h>

#include "../git/git_fixture.h"
#include "record/store.h"
#include "watch/iso_time.h"
#include "watch/poll_state.h"
#include "watch/slot.h"

namespace aw {
namespace {

TEST(WatchState, ValuesSurviveAReopenAndListByPrefix) {
  test::TempDir tmp;
  {
    auto st = Store::open(tmp.path);
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_TRUE(st->watch_put("issue/web_1/1", {{"a", 1}}));
    ASSERT_TRUE(st->watch_put("issue/web%/2", {{"a", 2}}));
    ASSERT_TRUE(st->watch_put("poll/web", {{"etag", "W/\"x\""}}));
  }
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st);
  auto got = st->watch_get("poll/web");
  ASSERT_TRUE(got && *got);
  EXPECT_EQ((**got)["etag"], "W/\"x\"");
  auto list = st->watch_list("issue/web_");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].first, "issue/web_1/1");
  ASSERT_TRUE(st->watch_erase("poll/web"));
  auto gone = st->watch_get("poll/web");
  ASSERT_TRUE(gone);
  EXPECT_FALSE(*gone);
}

TEST(WatchState, AnIssueSlotRoundTrips) {
  IssueSlot s;
  s.repo = "web";
  s.number = 42;
  s.phase = "running";
  s.seen = {1001, 2002};
  s.trigger = "label added by @alice: role write";
  s.trigger_at = 17;
  s.claim_comment = 9;
  s.claim_note = "took over";
  s.ended_claim = 8;
  s.attempt_host = "box";
  s.attempt_pid = 4321;
  s.attempt_since = 1700000000;
  s.unit_id = "u1";
  s.child_pid = 1234;
  s.child_start = "5678";
  s.attempts = 2;
  s.stop_reason = "window ended";
  s.seen.review = 3003;  // a pull request's (issue 26)
  s.seen.review_comment = 4004;
  s.pull = true;
  s.pull_own = 1;
  s.follow_units = 2;
  s.follow_ended = 1700000100;
  s.pending = true;
  s.limit_said = true;
  s.not_before = 99;
  auto t = slot_from_json(to_json(s), "watch state issue/web/000000000042");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(to_json(*t), to_json(s));
  EXPECT_EQ(t->seen.comment, 2002);
  EXPECT_EQ(t->seen.review_comment, 4004);
  EXPECT_TRUE(t->pull);
  EXPECT_EQ(t->follow_units, 2);
  EXPECT_EQ(slot_key("web", 42), "issue/web/000000000042");
  // A GitLab merge request's slot (issue 29): its iid is counted apart from the issues', so !42
  // is kept beside #42, and its flag round-trips.
  s.mr = true;
  EXPECT_EQ(slot_key(s), "issue/web/!000000000042");
  EXPECT_EQ(slot_key("web", 42, /*mr=*/true), "issue/web/!000000000042");
  auto m = slot_from_json(to_json(s), "watch state issue/web/!000000000042");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->mr);
  EXPECT_FALSE(t->mr);
}

// A slot's trigger and stop reason come from the forge (a label's actor, a comment) and may hold
// bytes that are not UTF-8: the slot is saved with U+FFFD for them and everything else kept. A
// strict dump threw there (type_error 316) and the issue's state was lost.
TEST(WatchState, ASlotHoldingBytesThatAreNotUtf8IsSavedWithReplacements) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st) << st.error().message;
  IssueSlot s;
  s.repo = "web";
  s.number = 7;
  s.phase = "queued";
  s.trigger = "comment by @\xff\xfemallory";
  s.stop_reason = "agent said \xC3(";
  s.attempts = 1;
  Status saved = Status{};
  ASSERT_NO_THROW(saved = save_slot(*st, s));
  ASSERT_TRUE(saved) << saved.error().message;
  auto back = load_slot(*st, "web", 7);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->trigger, "comment by @\xEF\xBF\xBD\xEF\xBF\xBDmallory");
  EXPECT_EQ(back->stop_reason, "agent said \xEF\xBF\xBD(");
  EXPECT_EQ(back->phase, "queued");
  EXPECT_EQ(back->attempts, 1);
}

// A slot that is not as watch wrote it (a corrupt or edited database) is an error naming the
// field and where it is kept, never an exception that ends watch (issue 38, invariant 7).
TEST(WatchState, AWronglyTypedSlotFieldIsAnErrorNamingIt) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st) << st.error().message;
  ASSERT_TRUE(
      st->watch_put(slot_key("web", 42),
                    {{"repo", "web"}, {"number", 42}, {"phase", "queued"}, {"attempts", "two"}}));
  auto s = load_slot(*st, "web", 42);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "watch state issue/web/000000000042: field \"attempts\": expected an integer, got "
            "string");
  auto listed = slot_from_json(nlohmann::json::array({1}), "watch state issue/web/1");
  ASSERT_FALSE(listed);
  EXPECT_EQ(listed.error().message, "watch state issue/web/1: expected an object, got array");
  auto flag = slot_from_json({{"requeued", 1}}, "watch state issue/web/2");
  ASSERT_FALSE(flag);
  EXPECT_NE(flag.error().message.find("field \"requeued\": expected a boolean"), std::string::npos)
      << flag.error().message;
}

using nlohmann::json;

const int64_t kT0 = *parse_iso_utc("2026-12-01T10:00:00Z");

json listed(int64_t n, int64_t updated, std::vector<std::string> labels = {}, int comments = 0) {
  json l = json::array();
  for (const auto& name : labels) l.push_back({{"name", name}});
  return {{"number", n},     {"updated_at", iso_utc(updated)},
          {"state", "open"}, {"comments", comments},
          {"labels", l},     {"assignees", json::array()}};
}

ListAnswer answer_of(json items, int64_t server_time, const std::string& etag = "W/\"b\"") {
  ListAnswer a;
  a.items = std::move(items);
  a.etag = etag;
  a.server_time = server_time;
  return a;
}

TEST(PollState, AChangedListKeepsItsSinceWithTheAnswersEtag) {
  // Issue 31 item 15: the ETag is good for the since it was made with, so both are kept; the
  // next poll with nothing new is a 304 instead of a counted request under a new since.
  PollState before{iso_utc(kT0), "W/\"a\"", {}};
  json items = {listed(1, kT0 + 60), listed(2, kT0 + 120, {"awaywork"})};
  PollState next = next_poll_state(before, answer_of(items, kT0 + 600), {1, 2});
  EXPECT_EQ(next.since, iso_utc(kT0));
  EXPECT_EQ(next.etag, "W/\"b\"");
  EXPECT_EQ(issues_target("octo/web", next.since),
            "/repos/octo/web/issues?state=open&sort=updated&direction=asc&per_page=100&since=" +
                iso_utc(kT0));
  // Examined issues that still show the same are not examined again; a change shows.
  EXPECT_FALSE(needs_examining(next, items[0]));
  EXPECT_FALSE(needs_examining(next, items[1]));
  EXPECT_TRUE(needs_examining(next, listed(1, kT0 + 60, {}, 1)));
  EXPECT_TRUE(needs_examining(next, listed(3, kT0 + 60)));
  // What is kept survives the state database's JSON.
  PollState back = poll_state_from_json(to_json(next));
  EXPECT_EQ(to_json(back), to_json(next));
  // The form an older watch kept (since, target, etag, body) still reads.
  PollState old = poll_state_from_json(
      {{"since", iso_utc(kT0)}, {"target", "/x"}, {"etag", "W/\"a\""}, {"body", json::array()}});
  EXPECT_EQ(old.since, iso_utc(kT0));
  EXPECT_EQ(old.etag, "W/\"a\"");
  EXPECT_TRUE(old.examined.empty());
}

TEST(PollState, APullRequestIsKeptAsExaminedLikeAnIssue) {
  // Issue 26: watch examines the pull requests of the list for follow-ups; one whose examination
  // finished is not examined again while the list shows it the same, one that failed keeps the
  // list's ETag out (so that the next poll asks again).
  PollState before{iso_utc(kT0), "W/\"a\"", {}};
  json pull = listed(5, kT0 + 60);
  pull["pull_request"] = {{"url", "https://api.github.com/repos/octo/web/pulls/5"}};
  json items = {listed(1, kT0 + 30), pull};
  PollState next = next_poll_state(before, answer_of(items, kT0 + 600), {1, 5});
  EXPECT_FALSE(needs_examining(next, pull));
  EXPECT_EQ(next.etag, "W/\"b\"");
  PollState failed = next_poll_state(before, answer_of(items, kT0 + 600), {1});
  EXPECT_TRUE(needs_examining(failed, pull));
  EXPECT_EQ(failed.etag, "");
}

TEST(PollState, AnIssueNotExaminedOrChangedInTheAnswersSecondKeepsNoEtag) {
  PollState before{iso_utc(kT0), "W/\"a\"", {}};
  json items = {listed(1, kT0 + 60), listed(2, kT0 + 120)};
  // Issue 2's examination failed: the next poll asks again and examines it.
  PollState failed = next_poll_state(before, answer_of(items, kT0 + 600), {1});
  EXPECT_EQ(failed.etag, "");
  EXPECT_EQ(failed.since, iso_utc(kT0));
  EXPECT_FALSE(needs_examining(failed, items[0]));
  EXPECT_TRUE(needs_examining(failed, items[1]));
  // Issue 2 changed in the second the answer was made (or the one before): it may change again
  // within that second and the list show the same, so it is examined again next time.
  for (int64_t late : {0, 1}) {
    PollState settling = next_poll_state(before, answer_of(items, kT0 + 120 + late), {1, 2});
    EXPECT_EQ(settling.etag, "") << late;
    EXPECT_TRUE(needs_examining(settling, items[1])) << late;
    EXPECT_FALSE(needs_examining(settling, items[0])) << late;
  }
  EXPECT_EQ(next_poll_state(before, answer_of(items, kT0 + 122), {1, 2}).etag, "W/\"b\"");
}

TEST(PollState, AFullPageMovesSinceOnAndKeepsNoEtag) {
  // An ETag answers for the first page only: a change on a later page would hide behind a 304.
  PollState before;
  json items = json::array();
  for (int64_t n = 1; n <= 100; ++n) items.push_back(listed(n, kT0 + n));
  std::set<int64_t> all;
  for (int64_t n = 1; n <= 100; ++n) all.insert(n);
  PollState next = next_poll_state(before, answer_of(items, kT0 + 600), all);
  // A second before the newest: a change later in that second is listed whatever GitHub's
  // since counts; the issues the next list shows keep their fingerprints.
  EXPECT_EQ(next.since, iso_utc(kT0 + 99));
  EXPECT_EQ(next.etag, "");
  EXPECT_EQ(next.examined.size(), 2u);
  EXPECT_FALSE(needs_examining(next, items[99]));
  // Never past an issue still to be examined.
  all.erase(40);
  next = next_poll_state(before, answer_of(items, kT0 + 600), all);
  EXPECT_EQ(next.since, iso_utc(kT0 + 39));
  EXPECT_TRUE(needs_examining(next, items[39]));
  EXPECT_FALSE(needs_examining(next, items[40]));
  // A Link to a next page does the same with fewer issues.
  ListAnswer paged = answer_of({listed(1, kT0 + 1), listed(2, kT0 + 2)}, kT0 + 600);
  paged.paged = true;
  next = next_poll_state(before, paged, {1, 2});
  EXPECT_EQ(next.since, iso_utc(kT0 + 1));
  EXPECT_EQ(next.etag, "");
}

TEST(PollState, TheFingerprintIsWhatTriggersChange) {
  json a = listed(1, kT0, {"bug", "awaywork"});
  json b = listed(1, kT0, {"awaywork", "bug"});
  EXPECT_EQ(issue_fingerprint(a), issue_fingerprint(b));  // GitHub does not promise an order
  EXPECT_NE(issue_fingerprint(a), issue_fingerprint(listed(1, kT0, {"bug"})));
  EXPECT_NE(issue_fingerprint(a), issue_fingerprint(listed(1, kT0 + 1, {"bug", "awaywork"})));
  EXPECT_NE(issue_fingerprint(a), issue_fingerprint(listed(1, kT0, {"bug", "awaywork"}, 1)));
  json c = a;
  c["assignees"] = {{{"login", "aw-bot"}}};
  EXPECT_NE(issue_fingerprint(a), issue_fingerprint(c));
}

TEST(PollState, AnHttpDateIsRead) {
  EXPECT_EQ(http_date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
  EXPECT_EQ(http_date("Tue, 01 Dec 2026 10:00:00 GMT"), kT0);
  for (const char* bad : {"", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Foo 1994 08:49:37 GMT",
                          "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT x"})
    EXPECT_EQ(http_date(bad), 0) << bad;
}

}  // namespace
}  // namespace aw
