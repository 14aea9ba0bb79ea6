// The fixture of run_on: actions' pull requests opened by github-actions[bot] (issue 26,
// watch_actions_own_test.cc, watch_actions_prune_test.cc), against the fake GitHub: the caller
// workflow on main, an issue dispatched by watch, and what the dispatched run's jobs publish.
#pragma once

#include "watch_fixture.h"

namespace aw::test {

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
  int64_t open_pull(const std::string& author, const std::string& head, const std::string& of,
                    const std::string& base = "main") {
    auto p = fake->control(
        "POST", "repos/octo/web/pulls",
        {{"user", author},
         {"head", head},
         {"base", base},
         {"draft", true},
         {"title", "awaywork: Add a b file"},
         {"body", "b added\n\n---\nMade by awaywork: unit `" + of +
                      "`.\n\n<!-- awaywork:unit=" + of + " item=pull sha=0123abcd -->"}});
    EXPECT_TRUE(p.contains("number")) << fake->why();
    return p.value("number", int64_t{0});
  }

  // WITH_LINE: a review comment on b.txt's first line too (the pull request's diff must hold it).
  void request_changes(int64_t pull, bool with_line = true) {
    nlohmann::json review = {
        {"user", "maint"}, {"event", "REQUEST_CHANGES"}, {"body", "Say BRAVO."}};
    if (with_line)
      review["comments"] =
          nlohmann::json::array({{{"path", "b.txt"}, {"line", 1}, {"body", "Upper case."}}});
    auto v =
        fake->control("POST", "repos/octo/web/pulls/" + std::to_string(pull) + "/reviews", review);
    ASSERT_TRUE(v.is_object()) << fake->why();
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
  // draft pull request by github-actions[bot] and the artifact naming it (awaywork-pull-UNIT-N,
  // uploaded once apply opened N); then the run completes.
  int64_t run_publishes(int64_t run) {
    EXPECT_TRUE(fake->add_artifact("octo", "web", run, "awaywork-unit-" + unit).contains("id"))
        << fake->why();
    push_branch("awaywork/" + unit);
    int64_t p = open_pull("github-actions[bot]", "awaywork/" + unit, unit);
    add_pull_artifact(run, unit, p);
    fake->set_run("octo", "web", run, "completed", "success");
    return p;
  }

  // The apply job's proof that RUN opened pull request PULL for unit OF.
  void add_pull_artifact(int64_t run, const std::string& of, int64_t pull) {
    EXPECT_TRUE(
        fake->add_artifact("octo", "web", run, "awaywork-pull-" + of + "-" + std::to_string(pull))
            .contains("id"))
        << fake->why();
  }

  std::vector<nlohmann::json> of_pull(const std::vector<nlohmann::json>& all, int64_t pull) {
    std::vector<nlohmann::json> out;
    for (const auto& e : all)
      if (e.is_object() && e.value("pull", int64_t{0}) == pull) out.push_back(e);
    return out;
  }

  // The runs dispatched with the input pull-request N.
  size_t follow_up_runs(int64_t pull) {
    size_t n = 0;
    for (const auto& r : fake->runs("octo", "web"))
      n += r["inputs"] == nlohmann::json({{"pull-request", std::to_string(pull)}});
    return n;
  }
};

}  // namespace aw::test
