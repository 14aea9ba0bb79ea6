// Issue 26, run_on: actions, against the fake GitHub (a FAKE: GitHub cannot be reached here): the
// pull request a dispatched run's apply job opens is authored by the workflow token's login,
// github-actions[bot], not by watch's. Watch takes it as awaywork's own (a maintainer's requested
// changes are followed up, dispatched with the input pull-request) only when its marker names a
// unit U, a run this watch dispatched for an issue holds the artifact awaywork-pull-U-N (N its
// number: what the apply job uploads once it opened N), its head is that unit's branch and its
// base the configured one. A pull request by the same login with the marker of a unit whose
// artifact is on a run watch did not dispatch, or with a real unit's marker on another branch, is
// not: its review is not followed up, and neither is an admitted command on it (the workflow's jobs
// would push to it as their own). actions_login: "" turns it off; a person's login there is a
// config error.
#include <unistd.h>

#include "watch_actions_own_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

TEST_F(WatchActionsOwn, TheDispatchedRunsPullRequestIsFollowedUpAndForgedOnesAreNot) {
  int64_t run = dispatched_issue_run();
  ASSERT_GT(run, 0);
  int64_t own = run_publishes(run);
  ASSERT_GT(own, 0);

  // Forged: the same login (any workflow of the repository publishes as github-actions[bot])
  // with the marker of a unit whose artifact is on a run watch did not dispatch (the owner's, by
  // hand), and one with the real unit's marker on another branch.
  auto other =
      fake->api("POST", "/repos/octo/web/actions/workflows/awaywork.yml/dispatches", owner_token,
                json{{"ref", "main"}, {"inputs", {{"issue", "99"}}}, {"return_run_details", true}});
  ASSERT_EQ(other.first, 200) << other.second.dump();
  int64_t stranger_run = other.second["workflow_run_id"];
  ASSERT_TRUE(fake->add_artifact("octo", "web", stranger_run, "awaywork-unit-" + forged_unit)
                  .contains("id"));
  push_branch("awaywork/" + forged_unit);
  int64_t forged = open_pull("github-actions[bot]", "awaywork/" + forged_unit, forged_unit);
  push_branch("feature");
  int64_t copied = open_pull("github-actions[bot]", "feature", unit);
  ASSERT_GT(forged, 0);
  ASSERT_GT(copied, 0);

  for (int64_t p : {own, forged, copied}) request_changes(p);
  auto log = watch_once();

  auto taken = events(log, "actions_pull_own");
  ASSERT_EQ(taken.size(), 1u) << log.dump(1);
  EXPECT_EQ(taken[0]["pull"], own);
  EXPECT_EQ(taken[0]["unit"], unit);
  EXPECT_EQ(taken[0]["run"], run);
  auto refused = events(log, "actions_pull_refused");
  ASSERT_EQ(of_pull(refused, forged).size(), 1u) << log.dump(1);
  EXPECT_NE(of_pull(refused, forged)[0]["reason"].get<std::string>().find(
                "no workflow run this watch dispatched"),
            std::string::npos)
      << log.dump(1);
  ASSERT_EQ(of_pull(refused, copied).size(), 1u) << log.dump(1);
  EXPECT_NE(of_pull(refused, copied)[0]["reason"].get<std::string>().find(
                "its head is not the branch awaywork/" + unit),
            std::string::npos)
      << log.dump(1);

  // Only awaywork's own is followed up: dispatched with the input pull-request, nothing run here.
  auto dispatched = of_pull(events(log, "dispatched"), own);
  ASSERT_EQ(dispatched.size(), 1u) << log.dump(1);
  EXPECT_EQ(dispatched[0]["input"], "pull-request");
  EXPECT_EQ(follow_up_runs(own), 1u);
  for (int64_t p : {forged, copied}) {
    EXPECT_TRUE(of_pull(events(log, "trigger_admitted"), p).empty()) << log.dump(1);
    EXPECT_TRUE(of_pull(events(log, "dispatched"), p).empty()) << log.dump(1);
    EXPECT_EQ(follow_up_runs(p), 0u);
  }
  EXPECT_TRUE(events(log, "unit_spawned").empty()) << log.dump(1);
  EXPECT_NE(::access(ran_marker.c_str(), F_OK), 0) << "the agent ran on the watching machine";

  // An admitted command on a forged one is not dispatched either: the workflow's jobs, which
  // are github-actions[bot] and keep no record of runs, would push to its branch as their own.
  comment(forged, "maint", "/awaywork also say hello");
  log = watch_once();
  ASSERT_EQ(of_pull(events(log, "trigger_admitted"), forged).size(), 1u) << log.dump(1);
  auto said = of_pull(events(log, "follow_up_refused"), forged);
  ASSERT_EQ(said.size(), 1u) << log.dump(1);
  EXPECT_NE(said[0]["reason"].get<std::string>().find(
                "github-actions[bot]'s and not tied to a run this watch dispatched"),
            std::string::npos)
      << said[0];
  EXPECT_TRUE(of_pull(events(log, "dispatched"), forged).empty()) << log.dump(1);
  EXPECT_EQ(follow_up_runs(forged), 0u);
}

// The unit's artifact (awaywork-unit-U) is uploaded whatever the run's end (if: always()): a run
// whose check refused opens no pull request, yet anyone who reads U from its artifacts and can
// push a branch opens one on branch_prefix + U with U's marker. Only awaywork-pull-U-N, which the
// apply job uploads once it opened pull request N, makes N awaywork's own.
TEST_F(WatchActionsOwn, AnIssueRunsUnitArtifactAloneMakesNoPullRequestItsOwn) {
  int64_t run = dispatched_issue_run();
  ASSERT_GT(run, 0);
  ASSERT_TRUE(fake->add_artifact("octo", "web", run, "awaywork-unit-" + unit).contains("id"));
  fake->set_run("octo", "web", run, "completed", "failure");  // the check refused: no apply
  push_branch("awaywork/" + unit);
  int64_t forged = open_pull("github-actions[bot]", "awaywork/" + unit, unit);
  ASSERT_GT(forged, 0);
  request_changes(forged);
  auto log = watch_once();
  EXPECT_TRUE(events(log, "actions_pull_own").empty()) << log.dump(1);
  auto refused = of_pull(events(log, "actions_pull_refused"), forged);
  ASSERT_EQ(refused.size(), 1u) << log.dump(1);
  EXPECT_NE(refused[0]["reason"].get<std::string>().find(
                "no workflow run this watch dispatched for an issue holds the artifact "
                "awaywork-pull-" +
                unit + "-" + std::to_string(forged)),
            std::string::npos)
      << refused[0];
  EXPECT_TRUE(of_pull(events(log, "dispatched"), forged).empty()) << log.dump(1);
  EXPECT_EQ(follow_up_runs(forged), 0u);
  EXPECT_NE(::access(ran_marker.c_str(), F_OK), 0) << "the agent ran on the watching machine";
}

// A follow-up's run (dispatched with the input pull-request) pushes to the pull request it
// follows and never opens one: whatever artifacts it holds, a pull request on its unit's branch
// with its unit's marker is someone else's.
TEST_F(WatchActionsOwn, AFollowUpRunNeverMakesAPullRequestItsOwn) {
  int64_t run = dispatched_issue_run();
  ASSERT_GT(run, 0);
  int64_t own = run_publishes(run);
  ASSERT_GT(own, 0);
  request_changes(own);
  auto log = watch_once();
  ASSERT_EQ(events(log, "actions_pull_own").size(), 1u) << log.dump(1);
  ASSERT_EQ(follow_up_runs(own), 1u) << log.dump(1);
  int64_t follow_up = 0;
  for (const auto& r : fake->runs("octo", "web"))
    if (r["inputs"] == json({{"pull-request", std::to_string(own)}})) follow_up = r["id"];
  ASSERT_GT(follow_up, 0);

  // The follow-up's unit's artifact, uploaded always; and, so that only the run's kind is left to
  // tell, even the pull artifact for the forged pull request.
  const std::string next = "20261206-091500-say-bravo-7d4b";
  ASSERT_TRUE(fake->add_artifact("octo", "web", follow_up, "awaywork-unit-" + next).contains("id"));
  fake->set_run("octo", "web", follow_up, "completed", "success");
  push_branch("awaywork/" + next);
  int64_t forged = open_pull("github-actions[bot]", "awaywork/" + next, next);
  ASSERT_GT(forged, 0);
  add_pull_artifact(follow_up, next, forged);
  request_changes(forged);
  log = watch_once();
  EXPECT_TRUE(of_pull(events(log, "actions_pull_own"), forged).empty()) << log.dump(1);
  auto refused = of_pull(events(log, "actions_pull_refused"), forged);
  ASSERT_EQ(refused.size(), 1u) << log.dump(1);
  EXPECT_NE(refused[0]["reason"].get<std::string>().find("to follow up a pull request"),
            std::string::npos)
      << refused[0];
  EXPECT_TRUE(of_pull(events(log, "dispatched"), forged).empty()) << log.dump(1);
  EXPECT_EQ(follow_up_runs(forged), 0u);
}

// An issue run's unit targets the configured base (here the repository's default branch, main):
// a pull request of the unit's marker and branch into another base is not awaywork's own, even
// with the run's proof.
TEST_F(WatchActionsOwn, APullRequestIntoAnotherBaseIsNotItsOwn) {
  int64_t run = dispatched_issue_run();
  ASSERT_GT(run, 0);
  ASSERT_TRUE(fake->add_artifact("octo", "web", run, "awaywork-unit-" + unit).contains("id"));
  push_branch("release");
  push_branch("awaywork/" + unit);
  int64_t other = open_pull("github-actions[bot]", "awaywork/" + unit, unit, "release");
  ASSERT_GT(other, 0);
  add_pull_artifact(run, unit, other);
  fake->set_run("octo", "web", run, "completed", "success");
  request_changes(other, /*with_line=*/false);  // release holds b.txt too: no diff
  auto log = watch_once();
  EXPECT_TRUE(events(log, "actions_pull_own").empty()) << log.dump(1);
  auto refused = of_pull(events(log, "actions_pull_refused"), other);
  ASSERT_EQ(refused.size(), 1u) << log.dump(1);
  EXPECT_NE(refused[0]["reason"].get<std::string>().find(
                "its base is the branch release, not the configured base main"),
            std::string::npos)
      << refused[0];
  EXPECT_TRUE(of_pull(events(log, "dispatched"), other).empty()) << log.dump(1);
  EXPECT_EQ(follow_up_runs(other), 0u);
}

TEST_F(WatchActionsOwn, AnEmptyActionsLoginTurnsItOff) {
  watch_keys = "  poll_seconds: 5\n  run_on: actions\n  actions_login: \"\"\n  repos: {web: {}}\n";
  extra_repo_keys = "    follow_up: {max_units_per_pr: 3, cooldown: 0}\nwatch:\n" + watch_keys;
  write_config();
  int64_t run = dispatched_issue_run();
  ASSERT_GT(run, 0);
  int64_t pull = run_publishes(run);
  ASSERT_GT(pull, 0);
  request_changes(pull);
  auto log = watch_once();
  EXPECT_TRUE(events(log, "actions_pull_own").empty()) << log.dump(1);
  EXPECT_TRUE(of_pull(events(log, "dispatched"), pull).empty()) << log.dump(1);
  EXPECT_EQ(follow_up_runs(pull), 0u);
}

TEST_F(WatchActionsOwn, APersonsLoginAsActionsLoginIsAConfigErrorNamingWhere) {
  watch_keys = "  poll_seconds: 5\n  run_on: actions\n  repos: {web: {actions_login: maint}}\n";
  write_watch_config();
  Captured c = aw({"watch", "--once"});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("config.yml:"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("'maint' is not a GitHub App's login (NAME[bot])"), std::string::npos)
      << c.err;
  EXPECT_TRUE(fake->runs("octo", "web").empty());
}

}  // namespace
}  // namespace aw::test
