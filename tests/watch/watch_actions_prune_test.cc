// Issue 26, run_on: actions, against the fake GitHub (a FAKE: GitHub cannot be reached here): the
// records of the runs watch dispatched are pruned (watcher_actions_own.cc prune_dispatched_runs),
// and pruning never makes a forged pull request awaywork's own. A run's record goes once the pull
// request tied to it is closed (with the follow-up runs dispatched on it, and then the pull
// record), or once it is older than GitHub's longest artifact retention; afterwards a pull request
// by github-actions[bot] with that unit's marker, on that unit's branch, whose artifact the run
// still holds, is refused: an erased record is never written again (only a dispatch writes one,
// under the id GitHub gave it).
#include <ctime>

#include "record/store.h"
#include "watch_actions_own_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

class WatchActionsPrune : public WatchActionsOwn {
 protected:
  // The watch state's records whose key starts with prefix, as watch left them (not running).
  std::vector<std::pair<std::string, json>> records(const std::string& prefix) {
    auto st = Store::open(tmp.path + "/state");
    EXPECT_TRUE(st) << st.error().message;
    if (!st) return {};
    auto all = st->watch_list(prefix);
    EXPECT_TRUE(all) << all.error().message;
    return all ? *all : std::vector<std::pair<std::string, json>>{};
  }

  // The run's record, its time moved to days ago (as a watch that dispatched it then left it).
  void age_record(int64_t run, int64_t days) {
    auto st = Store::open(tmp.path + "/state");
    ASSERT_TRUE(st) << st.error().message;
    auto all = st->watch_list("actions_run/");
    ASSERT_TRUE(all) << all.error().message;
    std::string tail = "/" + std::to_string(run);
    for (auto& [key, value] : *all) {
      if (!key.ends_with(tail)) continue;
      ASSERT_TRUE(value.contains("at")) << value.dump();
      value["at"] = static_cast<int64_t>(std::time(nullptr)) - days * 86400;
      ASSERT_TRUE(st->watch_put(key, value));
      return;
    }
    FAIL() << "no record of run " << run;
  }

  struct Published {
    int64_t run = 0, pull = 0;
  };
  // An issue dispatched by watch, and the draft pull request its run's jobs published.
  Published published() {
    Published p;
    p.run = dispatched_issue_run();
    EXPECT_GT(p.run, 0);
    if (p.run > 0) p.pull = run_publishes(p.run);
    EXPECT_GT(p.pull, 0);
    return p;
  }

  // The same, its run's record dispatched days ago, then changes requested on it.
  Published reviewed_after(int64_t days) {
    Published p = published();
    if (p.pull <= 0) return p;
    age_record(p.run, days);
    request_changes(p.pull);
    return p;
  }

  std::vector<json> of_run(const std::vector<json>& all, int64_t run) {
    std::vector<json> out;
    for (const auto& e : all)
      if (e.value("run", int64_t{0}) == run) out.push_back(e);
    return out;
  }

  void expect_refused_as_not_dispatched(const json& log, int64_t pull) {
    auto refused = of_pull(events(log, "actions_pull_refused"), pull);
    ASSERT_EQ(refused.size(), 1u) << log.dump(1);
    EXPECT_NE(refused[0]["reason"].get<std::string>().find("no workflow run this watch dispatched"),
              std::string::npos)
        << refused[0];
    EXPECT_TRUE(events(log, "actions_pull_own").empty()) << log.dump(1);
    EXPECT_TRUE(of_pull(events(log, "dispatched"), pull).empty()) << log.dump(1);
    EXPECT_EQ(follow_up_runs(pull), 0u);
  }
};

TEST_F(WatchActionsPrune, AClosedPullRequestsRunsGoAndItsUnitsArtifactNoLongerCounts) {
  auto [run, own] = published();
  ASSERT_GT(own, 0);
  request_changes(own);
  auto log = watch_once();
  ASSERT_EQ(events(log, "actions_pull_own").size(), 1u) << log.dump(1);
  ASSERT_EQ(follow_up_runs(own), 1u) << log.dump(1);
  int64_t follow_up = 0;
  for (const auto& r : fake->runs("octo", "web"))
    if (r["inputs"] == json({{"pull-request", std::to_string(own)}})) follow_up = r["id"];
  ASSERT_GT(follow_up, 0);
  fake->set_run("octo", "web", follow_up, "completed", "success");

  // Open, it is kept: the issue's run, the follow-up's, and the pull record.
  log = watch_once();
  EXPECT_TRUE(events(log, "actions_run_pruned").empty()) << log.dump(1);
  EXPECT_TRUE(events(log, "actions_pull_pruned").empty()) << log.dump(1);
  EXPECT_EQ(records("actions_run/").size(), 2u);
  EXPECT_EQ(records("actions_pull/").size(), 1u);

  // Closed (merged is closed too): both runs' records go, then the pull record.
  auto closed = fake->api("PATCH", "/repos/octo/web/pulls/" + std::to_string(own), owner_token,
                          json{{"state", "closed"}});
  ASSERT_EQ(closed.first, 200) << closed.second.dump();
  log = watch_once();
  auto pruned = events(log, "actions_run_pruned");
  ASSERT_EQ(of_run(pruned, run).size(), 1u) << log.dump(1);
  EXPECT_NE(of_run(pruned, run)[0]["reason"].get<std::string>().find(
                "its pull request #" + std::to_string(own) + " is closed"),
            std::string::npos)
      << log.dump(1);
  ASSERT_EQ(of_run(pruned, follow_up).size(), 1u) << log.dump(1);
  EXPECT_NE(of_run(pruned, follow_up)[0]["reason"].get<std::string>().find("followed up"),
            std::string::npos)
      << log.dump(1);
  auto pulls = events(log, "actions_pull_pruned");
  ASSERT_EQ(pulls.size(), 1u) << log.dump(1);
  EXPECT_EQ(pulls[0]["unit"], unit);
  EXPECT_EQ(pulls[0]["pull"], own);
  EXPECT_TRUE(records("actions_run/").empty());
  EXPECT_TRUE(records("actions_pull/").empty());

  // Forged afterwards: any workflow of the repository publishes as github-actions[bot], and the
  // run still holds the artifact of that unit; the same marker on the same branch, reviewed by an
  // admitted person, is not awaywork's own and nothing is dispatched for it.
  int64_t again = open_pull("github-actions[bot]", "awaywork/" + unit, unit);
  ASSERT_GT(again, 0);
  request_changes(again);
  log = watch_once();
  expect_refused_as_not_dispatched(log, again);
  EXPECT_TRUE(records("actions_pull/").empty());
}

TEST_F(WatchActionsPrune, ARunPastTheLongestArtifactRetentionIsForgotten) {
  // Dispatched 402 days ago (GitHub keeps an artifact 400 days at most): pruned before the list
  // is examined, so its pull request is judged without it.
  auto [run, pull] = reviewed_after(402);
  ASSERT_GT(pull, 0);
  auto log = watch_once();
  auto pruned = of_run(events(log, "actions_run_pruned"), run);
  ASSERT_EQ(pruned.size(), 1u) << log.dump(1);
  EXPECT_NE(pruned[0]["reason"].get<std::string>().find("401 days"), std::string::npos)
      << pruned[0];
  EXPECT_TRUE(records("actions_run/").empty());
  expect_refused_as_not_dispatched(log, pull);
}

TEST_F(WatchActionsPrune, ARunWithinTheRetentionIsKept) {
  auto [run, pull] = reviewed_after(399);
  ASSERT_GT(pull, 0);
  auto log = watch_once();
  EXPECT_TRUE(events(log, "actions_run_pruned").empty()) << log.dump(1);
  auto taken = events(log, "actions_pull_own");
  ASSERT_EQ(taken.size(), 1u) << log.dump(1);
  EXPECT_EQ(taken[0]["pull"], pull);
  EXPECT_EQ(taken[0]["run"], run);
}

}  // namespace
}  // namespace aw::test
