// Issue 26, run_on: actions, against the fake GitHub (a FAKE: GitHub cannot be reached here): the
// pull request a dispatched run's apply job opens is authored by the workflow token's login,
// github-actions[bot], not by watch's. Watch takes it as awaywork's own (a maintainer's requested
// changes are followed up, dispatched with the input pull-request) only when its marker names a
// unit whose artifact (awaywork-unit-UNIT) a run this watch dispatched holds, and its head is
// that unit's branch. A pull request by the same login with the marker of a unit whose artifact
// is on a run watch did not dispatch, or with a real unit's marker on another branch, is not:
// its review is not followed up, and neither is an admitted command on it (the workflow's jobs
// would push to it as their own). actions_login: "" turns it off; a person's login there is a
// config error.
#include <unistd.h>

#include "watch_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

class WatchActionsOwn : public WatchTest {
 protected:
  // Unit ids as make_unit_id writes them (unit/unit_id.h).
  const std::string unit = "20261206-081500-add-a-b-file-3f2a";
  const std::string forged_unit = "20261206-081501-add-a-b-file-9c1e";
  std::string wt, ran_marker;

  void SetUp() override {
    watch_keys = "  poll_seconds: 5\n  run_on: actions\n  repos: {web: {}}\n";
    WatchTest::SetUp();
    collaborator("maint", "write");  // admitted (the default trust: admin, maintain, write)
    ASSERT_FALSE(fake->installation().empty()) << fake->why();  // github-actions[bot]
    ran_marker = tmp.path + "/the-agent-ran";
    write_agent("touch " + sq(ran_marker) + "\nprintf 'bravo\\n' > b.txt");
    extra_repo_keys = "    follow_up: {max_units_per_pr: 3, cooldown: 0}\nwatch:\n" + watch_keys;
    write_config();
    // The caller workflow on main, declaring both inputs watch dispatches.
    wt = tmp.path + "/wf";
    sh("git clone -q " + sq(tmp.path + "/fake-state/repos/octo/web.git") + " " + sq(wt));
    sh("mkdir -p .github/workflows && printf 'on:\\n  workflow_dispatch:\\n    inputs:\\n      "
       "issue: {type: string}\\n      pull-request: {type: string}\\njobs:\\n  unit:\\n    uses: "
       "awaywork/awaywork/.github/workflows/awaywork.yml@0123456789abcdef0123456789abcdef01234567"
       "\\n' > .github/workflows/awaywork.yml && git add . && git -c user.name=o -c "
       "user.email=o@x commit -qm workflow && git push -q origin HEAD:main",
       wt);
  }

  // A branch of octo/web with one commit on main, as an apply job pushes it.
  void push_branch(const std::string& name) {
    sh("git checkout -q main && git checkout -q -b " + sq(name) +
           " && echo bravo > b.txt && git add b.txt && git -c user.name=aw -c user.email=aw@x "
           "commit -qm b && git push -q origin HEAD && git checkout -q main",
       wt);
  }

  // A draft pull request as the apply job opens it: by AUTHOR, the body ending with the marker of
  // UNIT's pull request (forge/marker.h item_marker).
  int64_t open_pull(const std::string& author, const std::string& head, const std::string& of) {
    auto p = fake->control(
        "POST", "repos/octo/web/pulls",
        {{"user", author},
         {"head", head},
         {"base", "main"},
         {"draft", true},
         {"title", "awaywork: Add a b file"},
         {"body", "b added\n\n---\nMade by awaywork: unit `" + of +
                      "`.\n\n<!-- awaywork:unit=" + of + " item=pull sha=0123abcd -->"}});
    EXPECT_TRUE(p.contains("number")) << fake->why();
    return p.value("number", int64_t{0});
  }

  void request_changes(int64_t pull) {
    auto v = fake->control(
        "POST", "repos/octo/web/pulls/" + std::to_string(pull) + "/reviews",
        {{"user", "maint"},
         {"event", "REQUEST_CHANGES"},
         {"body", "Say BRAVO."},
         {"comments", json::array({{{"path", "b.txt"}, {"line", 1}, {"body", "Upper case."}}})}});
    ASSERT_EQ(v.value("state", ""), "CHANGES_REQUESTED") << v.dump();
  }

  // An issue labelled by its owner, dispatched by watch: the run's id.
  int64_t dispatched_issue_run() {
    int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
    label(n, "octo", "awaywork");
    auto log = watch_once();
    EXPECT_EQ(events(log, "dispatched").size(), 1u) << log.dump(1);
    auto runs = fake->runs("octo", "web");
    EXPECT_EQ(runs.size(), 1u) << runs.dump(1);
    return runs.empty() ? 0 : runs[0]["id"].get<int64_t>();
  }

  // The run's jobs, as GitHub would run them: the agent job's artifact, the apply job's branch and
  // draft pull request by github-actions[bot]; then the run completes.
  int64_t run_publishes(int64_t run) {
    EXPECT_TRUE(fake->add_artifact("octo", "web", run, "awaywork-unit-" + unit).contains("id"))
        << fake->why();
    push_branch("awaywork/" + unit);
    int64_t p = open_pull("github-actions[bot]", "awaywork/" + unit, unit);
    fake->set_run("octo", "web", run, "completed", "success");
    return p;
  }

  std::vector<json> of_pull(const std::vector<json>& all, int64_t pull) {
    std::vector<json> out;
    for (const auto& e : all)
      if (e.value("pull", int64_t{0}) == pull) out.push_back(e);
    return out;
  }

  // The runs dispatched with the input pull-request N.
  size_t follow_up_runs(int64_t pull) {
    size_t n = 0;
    for (const auto& r : fake->runs("octo", "web"))
      n += r["inputs"] == json({{"pull-request", std::to_string(pull)}});
    return n;
  }
};

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
