// watch's state in the record database (record/watch_state.cc, watch/slot.h): values survive a
// reopen, a listing by prefix is a range (keys with _ and % are plain), an issue's slot
// round-trips every field.
#include <gtest/gtest.h>

#include "../git/git_fixture.h"
#include "record/store.h"
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
  s.unit_id = "u1";
  s.child_pid = 1234;
  s.child_start = "5678";
  s.attempts = 2;
  s.stop_reason = "window ended";
  s.not_before = 99;
  IssueSlot t = slot_from_json(to_json(s));
  EXPECT_EQ(to_json(t), to_json(s));
  EXPECT_EQ(t.seen.comment, 2002);
  EXPECT_EQ(slot_key("web", 42), "issue/web/000000000042");
}

}  // namespace
}  // namespace aw
