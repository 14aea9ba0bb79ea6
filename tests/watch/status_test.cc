// What serve shows of a watcher (watch/status.h): claims and the queue from the issue slots, the
// queue in the order watch starts it, and "watching" only while the beat's process is the very
// process that wrote it (a stopped watcher, a dead pid and no watcher at all each say so).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include "../git/git_fixture.h"
#include "record/store.h"
#include "watch/slot.h"
#include "watch/status.h"

namespace aw {
namespace {

IssueSlot slot(int64_t n, const std::string& phase, int64_t queued_at) {
  IssueSlot s;
  s.repo = "web";
  s.number = n;
  s.phase = phase;
  s.queued_at = queued_at;
  s.trigger = "label awaywork added by @alice";
  return s;
}

WatcherBeat me() {
  WatcherBeat b;
  b.host = "box";
  b.pid = ::getpid();
  b.start = process_start_time(b.pid);
  b.started_at = 1'800'000'000;
  b.beat_at = 1'800'000'050;
  b.repos.push_back({"web", 1'800'000'040, 1'800'000'100, 4990, 5000, 1'800'003'600, 12});
  return b;
}

TEST(WatcherStatus, ListsClaimsAndTheQueueInStartOrder) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st) << st.error().message;
  IssueSlot running = slot(7, "running", 10);
  running.claim_comment = 99;
  running.claim_since = 1'800'000'010;
  running.unit_id = "20261201-abc";
  IssueSlot follow_up = slot(3, "queued", 30);
  follow_up.pull = true;  // a pull request's follow-up (issue 26)
  for (const IssueSlot& s : {follow_up, slot(9, "queued", 20), slot(4, "idle", 0), running})
    ASSERT_TRUE(save_slot(*st, s));
  ASSERT_TRUE(write_beat(*st, me()));
  auto v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE((*v)["watching"]) << v->dump();
  EXPECT_EQ((*v)["host"], "box");
  ASSERT_EQ((*v)["claims"].size(), 1u);
  EXPECT_EQ((*v)["claims"][0]["issue"], 7);
  EXPECT_EQ((*v)["claims"][0]["comment"], 99);
  EXPECT_EQ((*v)["claims"][0]["unit"], "20261201-abc");
  EXPECT_EQ((*v)["claims"][0]["since"], "2027-01-15T08:00:10Z");
  ASSERT_EQ((*v)["queue"].size(), 2u);
  EXPECT_EQ((*v)["queue"][0]["issue"], 9);  // queued first
  EXPECT_EQ((*v)["queue"][1]["issue"], 3);
  EXPECT_EQ((*v)["queue"][1]["pull"], true);
  EXPECT_EQ((*v)["queue"][0]["pull"], false);
  EXPECT_EQ((*v)["claims"][0]["pull"], false);
  const auto& repo = (*v)["repos"][0];
  EXPECT_EQ(repo["repo"], "web");
  EXPECT_EQ(repo["rate_limit"]["remaining"], 4990);
  EXPECT_EQ(repo["rate_limit"]["limit"], 5000);
  EXPECT_EQ(repo["requests"], 12);
  EXPECT_FALSE(v->contains("message"));
}

TEST(WatcherStatus, SaysWhenNoWatcherRuns) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st);
  auto none = watcher_status(*st);
  ASSERT_TRUE(none);
  EXPECT_FALSE((*none)["watching"]);
  EXPECT_NE((*none)["message"].get<std::string>().find("has not run"), std::string::npos);

  WatcherBeat stopped = me();
  stopped.stopped_at = stopped.beat_at;
  ASSERT_TRUE(write_beat(*st, stopped));
  auto v = watcher_status(*st);
  EXPECT_FALSE((*v)["watching"]);
  EXPECT_NE((*v)["message"].get<std::string>().find("stopped"), std::string::npos);

  // A pid reused by another process is not the watcher: its start time differs.
  WatcherBeat reused = me();
  reused.start = "1";
  ASSERT_TRUE(write_beat(*st, reused));
  v = watcher_status(*st);
  EXPECT_FALSE((*v)["watching"]);
  EXPECT_NE((*v)["message"].get<std::string>().find("killed or crashed"), std::string::npos);
}

// A beat or a slot that is not as watch wrote it (a corrupt or edited database) is named in
// "unreadable" with an error naming the field, and everything else is still shown: not a throw
// that would take serve down with it (issue 38, invariant 7), and not one bad row failing the
// whole view (a corrupt slot hid every other issue's claim).
TEST(WatcherStatus, ACorruptSlotIsNamedAndTheGoodSlotsAreStillShown) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st);
  ASSERT_TRUE(write_beat(*st, me()));
  IssueSlot running = slot(7, "running", 10);
  for (const IssueSlot& s : {slot(3, "queued", 30), running}) ASSERT_TRUE(save_slot(*st, s));
  ASSERT_TRUE(st->watch_put(slot_key("web", 5), {{"repo", "web"}, {"number", 5}, {"phase", 3}}));
  auto v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE((*v)["watching"]) << v->dump();
  ASSERT_EQ((*v)["claims"].size(), 1u) << v->dump();
  EXPECT_EQ((*v)["claims"][0]["issue"], 7);
  ASSERT_EQ((*v)["queue"].size(), 1u) << v->dump();
  EXPECT_EQ((*v)["queue"][0]["issue"], 3);
  ASSERT_EQ((*v)["unreadable"].size(), 1u) << v->dump();
  EXPECT_EQ((*v)["unreadable"][0]["key"], "issue/web/000000000005");
  EXPECT_EQ((*v)["unreadable"][0]["error"],
            "watch state issue/web/000000000005: field \"phase\": expected a string, got number");

  // A row whose value is not JSON at all (the file edited by hand) is named the same way.
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((tmp.path + "/awaywork.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    EXPECT_EQ(sqlite3_exec(db,
                           "UPDATE watch_state SET value = '{\"repo\": \"web\", trunc' WHERE key "
                           "= 'issue/web/000000000003'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ((*v)["claims"].size(), 1u) << v->dump();
  EXPECT_EQ((*v)["queue"].size(), 0u) << v->dump();
  ASSERT_EQ((*v)["unreadable"].size(), 2u) << v->dump();
  EXPECT_EQ((*v)["unreadable"][0]["key"], "issue/web/000000000003");
  EXPECT_EQ((*v)["unreadable"][0]["error"], "watch state issue/web/000000000003: not JSON");
  EXPECT_EQ((*v)["unreadable"][1]["key"], "issue/web/000000000005");
}

TEST(WatcherStatus, AWronglyTypedBeatIsNamedAndTheSlotsAreStillShown) {
  test::TempDir tmp;
  auto st = Store::open(tmp.path);
  ASSERT_TRUE(st);
  ASSERT_TRUE(save_slot(*st, slot(3, "queued", 30)));
  ASSERT_TRUE(st->watch_put("watcher", {{"host", "box"}, {"pid", "1234"}}));
  auto v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_FALSE((*v)["watching"]);
  EXPECT_NE((*v)["message"].get<std::string>().find("unreadable"), std::string::npos);
  ASSERT_EQ((*v)["queue"].size(), 1u) << v->dump();
  ASSERT_EQ((*v)["unreadable"].size(), 1u) << v->dump();
  EXPECT_EQ((*v)["unreadable"][0]["key"], "watcher");
  EXPECT_EQ((*v)["unreadable"][0]["error"],
            "watch state watcher: field \"pid\": expected an integer, got string");
  ASSERT_TRUE(st->watch_put("watcher", {{"host", "box"}, {"repos", {{{"repo", "web"}}, "web"}}}));
  v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ((*v)["unreadable"][0]["error"],
            "watch state watcher: field \"repos[1]\": expected an object, got string");
  // Nothing unreadable: an empty list, always there.
  ASSERT_TRUE(write_beat(*st, me()));
  v = watcher_status(*st);
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_TRUE((*v)["unreadable"].is_array());
  EXPECT_TRUE((*v)["unreadable"].empty());
}

}  // namespace
}  // namespace aw
