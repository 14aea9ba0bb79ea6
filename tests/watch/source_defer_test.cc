// A source's calls refused while a unit holds the worker (issue 28, isolation user): a deferral is
// said once as it begins, not at every refused poll, and begins anew once a call got through; a
// task_done kept in the task's done row is found again (by a later poll or the next watch) and
// dropped once made, and nothing else in a row is read as a kept report.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "watch/source_defer.h"

namespace aw {
namespace {

using nlohmann::json;

TEST(SourceDeferral, SaidOnceAsItBeginsAndAgainOnlyAfterACallGotThrough) {
  SourceDeferral d;
  EXPECT_FALSE(d.deferring());
  EXPECT_TRUE(d.refused());   // the first refusal: the one source_deferred line
  EXPECT_FALSE(d.refused());  // every later refused poll: silent
  EXPECT_FALSE(d.refused());
  EXPECT_TRUE(d.deferring());
  d.through();  // a call reached the plugin
  EXPECT_FALSE(d.deferring());
  EXPECT_TRUE(d.refused());  // the worker busy again later: a new deferral, said again
  // A call that gets through while none was deferred changes nothing.
  SourceDeferral fresh;
  fresh.through();
  EXPECT_TRUE(fresh.refused());
}

TEST(SourcePendingReport, KeptInTheDoneRowFoundAgainAndDroppedOnceMade) {
  json done = {{"plugin", "tracker"}, {"repo", "web"},   {"id", "T-1"},    {"phase", "done"},
               {"unit", "u-1"},       {"state", "done"}, {"ended_at", 100}};
  json params = {{"task", "T-1"}, {"repo", "web"}, {"unit", "u-1"}, {"state", "done"}};
  EXPECT_FALSE(pending_report(done).has_value());  // made at the unit's end: nothing kept

  json kept = with_pending_report(done, params);
  auto found = pending_report(kept);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, params);
  // The rest of the row is the done row as it was: the task never runs again.
  EXPECT_EQ(kept["phase"], "done");
  EXPECT_EQ(kept["unit"], "u-1");
  // As the state database gives it back after a restart (text, parsed again).
  auto again = pending_report(json::parse(kept.dump()));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, params);

  json made = without_pending_report(kept);
  EXPECT_FALSE(pending_report(made).has_value());
  EXPECT_EQ(made, done);
}

TEST(SourcePendingReport, OnlyADoneRowsParamsObjectIsAKeptReport) {
  json params = {{"task", "T-1"}};
  // A task not yet done (queued, starting, running) has nothing to report.
  for (const char* phase : {"queued", "starting", "running", "refused"}) {
    json row = {{"phase", phase}, {kPendingReport, params}};
    EXPECT_FALSE(pending_report(row).has_value()) << phase;
  }
  // Written by hand or by something else: wrong types are no report, never an exception.
  EXPECT_FALSE(pending_report(json{{"phase", 5}, {kPendingReport, params}}).has_value());
  EXPECT_FALSE(pending_report(json{{kPendingReport, params}}).has_value());
  EXPECT_FALSE(pending_report(json{{"phase", "done"}, {kPendingReport, "T-1"}}).has_value());
  EXPECT_FALSE(pending_report(json{{"phase", "done"}, {kPendingReport, nullptr}}).has_value());
  EXPECT_FALSE(pending_report(json::array()).has_value());
  EXPECT_FALSE(pending_report(json("done")).has_value());
  EXPECT_EQ(without_pending_report(json::array()), json::array());
}

}  // namespace
}  // namespace aw
