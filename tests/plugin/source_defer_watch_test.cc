// A source plugin under isolation user while a unit holds the worker (issue 28): `awaywork watch
// --once` against the real worker lock (STATE/worker-WORKER.lock, held by this test as a unit's
// isolator holds it; no root needed: nothing of the plugin runs). The poll is deferred, with one
// source_deferred line and no source_failed; a task_done refused so is kept in the task's row,
// kept across a restart, and made at the first poll after the worker is free. The worker here is
// a user that does not exist, so that once the lock is free the call fails further on (a failure
// of its own, logged and not kept): the lock alone made the difference.
#include <stdlib.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "../watch/watch_fixture.h"
#include "base/fs.h"
#include "isolate/user/worker_lock.h"
#include "plugin/worker_call.h"
#include "record/store.h"

namespace aw::test {
namespace {

using nlohmann::json;

constexpr const char* kWorker = "aw-no-such-worker";

class SourceDeferWatch : public WatchTest {
 protected:
  std::string state;

  void SetUp() override {
    watch_keys = "  poll_seconds: 5\n  sources:\n    - {source: tracker, repo: web}\n";
    extra_keys = std::string("isolation: user\nworker_user: ") + kWorker +
                 "\nplugins:\n  run: true\n  tracker:\n    kind: source\n    command: [" +
                 AW_SOURCE_DIR +
                 "/examples/plugins/tracker-source/tracker-source]\n"
                 "    net: [tracker.example.com]\n    env: [TRACKER_URL]\n    timeout: 30s\n";
    WatchTest::SetUp();
    state = tmp.path + "/state";
    ASSERT_TRUE(make_dirs(state, 0700));
  }
  std::optional<json> row(const std::string& key) {
    auto st = Store::open(state);
    EXPECT_TRUE(st) << st.error().message;
    if (!st) return std::nullopt;
    auto r = st->watch_get(key);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : std::nullopt;
  }
};

TEST_F(SourceDeferWatch, WhileAUnitHoldsTheWorkerThePollWaitsAndTheReportIsKeptNotLost) {
  const std::string key = "source/tracker/web/T-9";
  {
    // A task whose unit was starting when a watch died: the next watch reports it ended at once.
    auto st = Store::open(state);
    ASSERT_TRUE(st) << st.error().message;
    ASSERT_TRUE(st->watch_put(key, {{"plugin", "tracker"},
                                    {"repo", "web"},
                                    {"id", "T-9"},
                                    {"phase", "starting"},
                                    {"prompt_file", ""},
                                    {"queued_at", 1}}));
  }
  // A unit holds the worker, as its isolator does (no holder written).
  auto lock = lock_worker(state, kWorker);
  ASSERT_TRUE(lock.has_value()) << lock.error().message;

  json log = watch_once();
  EXPECT_TRUE(events(log, "source_failed").empty()) << log.dump(1);
  EXPECT_TRUE(events(log, "source_polled").empty()) << log.dump(1);
  // One line for the task_done refused and the poll after it: the deferral as it began.
  auto deferred = events(log, "source_deferred");
  ASSERT_EQ(deferred.size(), 1u) << log.dump(1);
  EXPECT_EQ(deferred[0].value("source", ""), "tracker");
  EXPECT_NE(deferred[0]
                .value("reason", "")
                .find(std::string("another unit is running as worker ") + kWorker),
            std::string::npos)
      << deferred[0].dump();
  EXPECT_EQ(deferred[0].value("next_in", 0), 5);
  auto done = events(log, "task_done");
  ASSERT_EQ(done.size(), 1u) << log.dump(1);
  EXPECT_EQ(done[0].value("task", ""), "T-9");
  EXPECT_FALSE(done[0].value("reported", true)) << done[0].dump();
  EXPECT_TRUE(done[0].value("pending", false)) << done[0].dump();
  // Done (never run again), its report kept in its row.
  auto r = row(key);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->value("phase", ""), "done") << r->dump();
  ASSERT_TRUE(r->contains("pending_report")) << r->dump();
  EXPECT_EQ((*r)["pending_report"].value("task", ""), "T-9") << r->dump();
  EXPECT_EQ((*r)["pending_report"].value("state", ""), "failed") << r->dump();

  // A restart while the unit still runs: still deferred, the report still kept, nothing failed.
  log = watch_once();
  EXPECT_EQ(events(log, "source_deferred").size(), 1u) << log.dump(1);
  EXPECT_TRUE(events(log, "source_failed").empty()) << log.dump(1);
  EXPECT_TRUE(events(log, "task_done").empty()) << log.dump(1);
  EXPECT_TRUE(events(log, "task_reported").empty()) << log.dump(1);
  r = row(key);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->contains("pending_report")) << r->dump();

  // The worker free: the kept report is made at the poll, before the tasks. Here the call then
  // fails on its own (the worker user does not exist): logged as such, kept no longer, and the
  // poll is a plain source_failed again.
  unlock_worker(*lock);
  log = watch_once();
  EXPECT_TRUE(events(log, "source_deferred").empty()) << log.dump(1);
  auto reported = events(log, "task_reported");
  ASSERT_EQ(reported.size(), 1u) << log.dump(1);
  EXPECT_EQ(reported[0].value("task", ""), "T-9");
  EXPECT_EQ(reported[0].value("state", ""), "failed");
  EXPECT_FALSE(reported[0].value("reported", true));
  EXPECT_NE(reported[0].value("error", "").find("does not exist"), std::string::npos)
      << reported[0].dump();
  auto failed = events(log, "source_failed");
  ASSERT_EQ(failed.size(), 1u) << log.dump(1);
  EXPECT_NE(failed[0].value("error", "").find("does not exist"), std::string::npos)
      << failed[0].dump();
  r = row(key);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->value("phase", ""), "done");
  EXPECT_FALSE(r->contains("pending_report")) << r->dump();
}

// What a call defers for is the lock's own refusal of a unit holder, read from lock_worker as it
// is (flock is per open file: a second lock_worker in this process is refused as another's would
// be); anything else is a failure, and so are those words anywhere but at the start (a plugin's
// words quoted in an error).
TEST(WorkerBusy, TheLocksRefusalOfAUnitHolderIsWhatACallDefersFor) {
  char tmpl[] = "/tmp/aw-worker-busy-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  auto unit = lock_worker(dir, "w");
  ASSERT_TRUE(unit.has_value()) << unit.error().message;
  auto call = lock_worker(dir, "w", std::string(kPluginHolder) + "tracker");
  ASSERT_FALSE(call.has_value());
  EXPECT_TRUE(held_by_a_unit(call.error())) << call.error().message;
  unlock_worker(*unit);
  auto free = lock_worker(dir, "w", std::string(kPluginHolder) + "tracker");
  ASSERT_TRUE(free.has_value()) << free.error().message;
  unlock_worker(*free);

  auto missing = lock_worker(dir + "/gone", "w", std::string(kPluginHolder) + "tracker");
  ASSERT_FALSE(missing.has_value());
  EXPECT_FALSE(held_by_a_unit(missing.error())) << missing.error().message;
  EXPECT_FALSE(held_by_a_unit(
      Error{"plugin tracker answered error: another unit is running as worker w (lock x)"}));
  (void)remove_tree(dir);
}

}  // namespace
}  // namespace aw::test
