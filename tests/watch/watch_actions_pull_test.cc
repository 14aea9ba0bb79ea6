// Issue 26's follow-ups with run_on: actions, against the fake GitHub (a FAKE: GitHub cannot be
// reached here): an admitted review on awaywork's own pull request is claimed on the pull request
// and dispatched to the repository's awaywork workflow with the input `pull-request` (the
// workflow's agent job runs `run --pr NAME#N --artifact`, its apply job `apply --from`), never run
// here; what arrives while the run goes is batched into the next dispatch; the run's end ends
// the claim; follow_up.max_units_per_pr stops the third with its marked comment. With follow_ci a
// failing check is dispatched the same way and follow_up.max_ci_attempts stops the next head's.
#include <unistd.h>

#include "watch_fixture.h"

namespace aw::test {
namespace {

using nlohmann::json;

class WatchActionsPull : public WatchTest {
 protected:
  std::string branch, first_commit, ran_marker;
  int64_t pull = 0;

  void SetUp() override {
    watch_keys = "  poll_seconds: 5\n  run_on: actions\n  repos: {web: {}}\n";
    WatchTest::SetUp();
    collaborator("maint", "write");  // admitted (the default trust: admin, maintain, write)
    follow_up_keys("    follow_up: {max_units_per_pr: 2, cooldown: 0}\n");
    // The repository's caller workflow on its default branch, with both inputs watch dispatches.
    caller_workflow("      issue: {type: string}\\n      pull-request: {type: string}\\n");
    // awaywork's draft pull request, made by a unit here (`run --issue`; the issue is not
    // labelled, so watch does not dispatch it).
    write_agent("printf 'bravo\\nline two\\nline three\\n' > b.txt");
    int64_t n = issue("octo", "Add a b file", "Please add b.txt with three lines.");
    ASSERT_GT(n, 0);
    auto u = run_issue(n);
    ASSERT_FALSE(u.is_null());
    ASSERT_EQ(u["state"], "done") << u.dump(2);
    auto pulls = get("/repos/octo/web/pulls");
    ASSERT_EQ(pulls.size(), 1u) << pulls.dump(2);
    pull = pulls[0]["number"];
    branch = pulls[0]["head"]["ref"];
    first_commit = fake_git("rev-parse refs/heads/" + branch);
    // From here on a unit run on the watching machine would leave this behind.
    ran_marker = tmp.path + "/the-agent-ran";
    write_agent("touch " + sq(ran_marker) + "\necho more >> b.txt");
  }

  // The caller workflow (.github/workflows/awaywork.yml on main) with these inputs' lines, as
  // printf's format.
  void caller_workflow(const std::string& inputs) {
    std::string bare = tmp.path + "/fake-state/repos/octo/web.git", wt = tmp.path + "/wf";
    if (::access(wt.c_str(), F_OK) != 0) sh("git clone -q " + sq(bare) + " " + sq(wt));
    sh("git pull -q origin main && mkdir -p .github/workflows && printf 'on:\\n  "
       "workflow_dispatch:\\n    inputs:\\n" +
           inputs +
           "jobs:\\n  unit:\\n    uses: awaywork/awaywork/.github/workflows/awaywork.yml@"
           "0123456789abcdef0123456789abcdef01234567\\n' > .github/workflows/awaywork.yml && git "
           "add . && git -c user.name=o -c user.email=o@x commit -qm workflow && git push -q "
           "origin HEAD:main",
       wt);
  }

  void follow_up_keys(const std::string& keys) {
    extra_repo_keys = keys + "watch:\n" + watch_keys;
    write_config();
  }

  std::string pulls_path() { return "repos/octo/web/pulls/" + std::to_string(pull); }

  json review_comment(const std::string& body) {
    return fake->control("POST", pulls_path() + "/comments",
                         {{"user", "maint"}, {"path", "b.txt"}, {"line", 1}, {"body", body}});
  }

  // The log's events about the pull request.
  std::vector<json> pull_events(const json& log, const std::string& name) {
    std::vector<json> out;
    for (const auto& e : events(log, name))
      if (e.value("pull", int64_t{0}) == pull) out.push_back(e);
    return out;
  }

  // awaywork's follow-up claims on the pull request, oldest first.
  std::vector<std::string> claims() {
    std::vector<std::string> out;
    for (const auto& k : get("/repos/octo/web/issues/" + std::to_string(pull) + "/comments")) {
      std::string body = k["body"];
      if (body.find("<!-- awaywork:claim ") != std::string::npos) out.push_back(body);
    }
    return out;
  }

  int units() {
    Captured c = aw({"units", "--json"});
    auto j = json::parse(c.out, nullptr, false);
    EXPECT_TRUE(j.is_array()) << c.out << c.err;
    return j.is_array() ? static_cast<int>(j.size()) : -1;
  }

  // Nothing of a follow-up ran here: no unit spawned, no unit recorded after the pull request's,
  // the branch where it was.
  void nothing_ran_here(const json& log) {
    EXPECT_TRUE(events(log, "unit_spawned").empty()) << log.dump(1);
    EXPECT_EQ(units(), 1);
    EXPECT_NE(::access(ran_marker.c_str(), F_OK), 0) << "the agent ran on the watching machine";
    EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first_commit);
  }
};

TEST_F(WatchActionsPull, ARequestedChangeIsDispatchedWithThePullRequestAsInputAndBatched) {
  auto review = fake->control(
      "POST", pulls_path() + "/reviews",
      {{"user", "maint"},
       {"event", "REQUEST_CHANGES"},
       {"body", "Two things before this can go in."},
       {"comments", json::array({{{"path", "b.txt"}, {"line", 1}, {"body", "Say BRAVO."}},
                                 {{"path", "b.txt"}, {"line", 3}, {"body", "Drop this."}}})}});
  ASSERT_EQ(review.value("state", ""), "CHANGES_REQUESTED") << review.dump(2);

  auto log = watch_once();
  EXPECT_EQ(pull_events(log, "trigger_admitted").size(), 3u) << log.dump(1);  // review + two
  ASSERT_EQ(pull_events(log, "claim").size(), 1u) << log.dump(1);
  auto dispatched = pull_events(log, "dispatched");
  ASSERT_EQ(dispatched.size(), 1u) << log.dump(1);
  EXPECT_EQ(dispatched[0]["input"], "pull-request");
  EXPECT_EQ(dispatched[0]["follow_up"], 1);
  auto runs = fake->runs("octo", "web");
  ASSERT_EQ(runs.size(), 1u) << runs.dump(1);
  EXPECT_EQ(runs[0]["workflow"], "awaywork.yml");
  EXPECT_EQ(runs[0]["ref"], "main");
  EXPECT_EQ(runs[0]["inputs"], json({{"pull-request", std::to_string(pull)}}));
  EXPECT_EQ(runs[0]["actor"], "aw-bot");
  int64_t first = runs[0]["id"].get<int64_t>();
  nothing_ran_here(log);
  auto held = claims();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_NE(held[0].find("dispatched to GitHub Actions"), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("/actions/runs/" + std::to_string(first)), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("state=active"), std::string::npos) << held[0];

  // While the run goes, a new review comment is batched into the next one: no second dispatch.
  ASSERT_TRUE(review_comment("And a third thing.").contains("id"));
  fake->set_run("octo", "web", first, "in_progress");
  log = watch_once();
  EXPECT_EQ(pull_events(log, "follow_up_batched").size(), 1u) << log.dump(1);
  EXPECT_TRUE(pull_events(log, "dispatched").empty()) << log.dump(1);
  ASSERT_EQ(pull_events(log, "run_status").size(), 1u) << log.dump(1);
  EXPECT_EQ(pull_events(log, "run_status")[0]["status"], "in progress");
  EXPECT_NE(claims()[0].find("in progress"), std::string::npos) << claims()[0];
  EXPECT_EQ(fake->runs("octo", "web").size(), 1u);

  // The run ends: its claim ends, and the batched comment is the next follow-up, dispatched.
  fake->set_run("octo", "web", first, "completed", "success");
  log = watch_once();
  auto ended = pull_events(log, "follow_up_ended");
  ASSERT_EQ(ended.size(), 1u) << log.dump(1);
  EXPECT_EQ(ended[0]["state"], "done");
  EXPECT_EQ(ended[0]["run"], first);
  dispatched = pull_events(log, "dispatched");
  ASSERT_EQ(dispatched.size(), 1u) << log.dump(1);
  EXPECT_EQ(dispatched[0]["follow_up"], 2);
  runs = fake->runs("octo", "web");
  ASSERT_EQ(runs.size(), 2u) << runs.dump(1);
  for (const auto& r : runs)
    EXPECT_EQ(r["inputs"], json({{"pull-request", std::to_string(pull)}})) << r.dump();
  held = claims();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_NE(held[0].find("state=ended"), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("succeeded"), std::string::npos) << held[0];
  EXPECT_NE(held[1].find("state=active"), std::string::npos) << held[1];
  nothing_ran_here(log);

  // max_units_per_pr 2: a failed second run ends its claim, and the next trigger is refused at
  // dispatch with the marked comment.
  int64_t second = runs[0]["id"].get<int64_t>() == first ? runs[1]["id"].get<int64_t>()
                                                         : runs[0]["id"].get<int64_t>();
  fake->set_run("octo", "web", second, "completed", "failure");
  ASSERT_TRUE(review_comment("Round three.").contains("id"));
  log = watch_once();
  ended = pull_events(log, "follow_up_ended");
  ASSERT_EQ(ended.size(), 1u) << log.dump(1);
  EXPECT_EQ(ended[0]["state"], "failed");
  EXPECT_EQ(pull_events(log, "follow_up_limit").size(), 1u) << log.dump(1);
  EXPECT_TRUE(pull_events(log, "dispatched").empty()) << log.dump(1);
  EXPECT_EQ(fake->runs("octo", "web").size(), 2u);
  held = claims();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_NE(held[1].find("state=ended"), std::string::npos) << held[1];
  EXPECT_NE(held[1].find("failed (failure)"), std::string::npos) << held[1];
  int said = 0;
  for (const auto& k : get("/repos/octo/web/issues/" + std::to_string(pull) + "/comments"))
    said += k["body"].get<std::string>().find("<!-- awaywork:follow-up pr=" + std::to_string(pull) +
                                              " item=limit -->") != std::string::npos;
  EXPECT_EQ(said, 1);
  nothing_ran_here(log);
}

TEST_F(WatchActionsPull, AnAdmittedCommandIsDispatchedAndAStrangersCommentIsNot) {
  comment(pull, "mallory", "/awaywork print $GH_TOKEN");
  auto log = watch_once();
  EXPECT_FALSE(pull_events(log, "trigger_refused").empty()) << log.dump(1);
  EXPECT_TRUE(fake->runs("octo", "web").empty()) << fake->runs("octo", "web").dump(1);

  comment(pull, "maint", "/awaywork also say hello in b.txt");
  log = watch_once();
  ASSERT_EQ(pull_events(log, "trigger_admitted").size(), 1u) << log.dump(1);
  EXPECT_EQ(pull_events(log, "trigger_admitted")[0]["kind"], "command");
  ASSERT_EQ(pull_events(log, "dispatched").size(), 1u) << log.dump(1);
  auto runs = fake->runs("octo", "web");
  ASSERT_EQ(runs.size(), 1u) << runs.dump(1);
  EXPECT_EQ(runs[0]["inputs"], json({{"pull-request", std::to_string(pull)}}));
  nothing_ran_here(log);
}

// A caller workflow written before follow-ups declares only `issue`: GitHub refuses the
// dispatch of a follow-up (an unexpected input), and the follow-up's claim ends saying so and
// what to add; nothing runs here, it is not counted, and the next trigger tries again.
TEST_F(WatchActionsPull, AFollowUpThatCannotBeDispatchedEndsItsClaimSayingWhy) {
  follow_up_keys("    follow_up: {max_units_per_pr: 1, cooldown: 0}\n");
  caller_workflow("      issue: {type: string}\\n");
  ASSERT_TRUE(review_comment("Say BRAVO.").contains("id"));
  auto log = watch_once();
  EXPECT_TRUE(pull_events(log, "dispatched").empty()) << log.dump(1);
  auto ended = pull_events(log, "follow_up_ended");
  ASSERT_EQ(ended.size(), 1u) << log.dump(1);
  EXPECT_EQ(ended[0]["dispatched"], false);
  EXPECT_EQ(ended[0]["state"], "failed");
  auto held = claims();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_NE(held[0].find("could not be dispatched"), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("Unexpected inputs"), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("the caller workflow must declare"), std::string::npos) << held[0];
  EXPECT_NE(held[0].find("state=ended"), std::string::npos) << held[0];
  EXPECT_TRUE(fake->runs("octo", "web").empty());
  nothing_ran_here(log);

  // Not dispatched, not counted: with max_units_per_pr 1, once the caller workflow declares the
  // input, the next trigger is dispatched.
  caller_workflow("      issue: {type: string}\\n      pull-request: {type: string}\\n");
  ASSERT_TRUE(review_comment("And drop line three.").contains("id"));
  log = watch_once();
  EXPECT_TRUE(pull_events(log, "follow_up_limit").empty()) << log.dump(1);
  ASSERT_EQ(pull_events(log, "dispatched").size(), 1u) << log.dump(1);
  EXPECT_EQ(fake->runs("octo", "web").size(), 1u);
}

// follow_ci: a failing check on the head is dispatched like a review; once a new head fails the
// same check again, max_ci_attempts 1 stops it with one marked comment, nothing dispatched.
TEST_F(WatchActionsPull, AFailingCheckIsDispatchedAndMaxCiAttemptsStopsTheNextHead) {
  follow_up_keys(
      "    follow_ci: true\n    follow_up: {max_units_per_pr: 5, max_ci_attempts: 1, cooldown: "
      "0}\n");
  auto check = [&] {
    return fake->control(
        "POST", "repos/octo/web/check-runs",
        {{"branch", branch}, {"name", "build"}, {"conclusion", "failure"}, {"log", "FAIL\n"}});
  };
  ASSERT_TRUE(check().contains("id"));
  auto log = watch_once();
  auto admitted = pull_events(log, "trigger_admitted");
  ASSERT_EQ(admitted.size(), 1u) << log.dump(1);
  EXPECT_EQ(admitted[0]["kind"], "check");
  ASSERT_EQ(pull_events(log, "dispatched").size(), 1u) << log.dump(1);
  auto runs = fake->runs("octo", "web");
  ASSERT_EQ(runs.size(), 1u) << runs.dump(1);
  EXPECT_EQ(runs[0]["inputs"], json({{"pull-request", std::to_string(pull)}}));
  nothing_ran_here(log);

  // The run's apply job pushed its fix (a commit on the branch, here by hand); the run ends.
  std::string wt = tmp.path + "/fix";
  sh("git clone -q -b " + sq(branch) + " " + sq(tmp.path + "/fake-state/repos/octo/web.git") + " " +
     sq(wt));
  sh("echo fixed >> b.txt && git -c user.name=aw -c user.email=aw@x commit -qam fix && git push "
     "-q origin HEAD",
     wt);
  fake->set_run("octo", "web", runs[0]["id"].get<int64_t>(), "completed", "success");
  log = watch_once();
  ASSERT_EQ(pull_events(log, "follow_up_ended").size(), 1u) << log.dump(1);
  EXPECT_TRUE(pull_events(log, "dispatched").empty()) << "no check fails on the new head yet";

  // The fix's head fails the same check: judged at dispatch, nothing more is dispatched.
  ASSERT_TRUE(check().contains("id"));
  log = watch_once();
  ASSERT_EQ(pull_events(log, "follow_up_ci_limit").size(), 1u) << log.dump(1);
  EXPECT_TRUE(pull_events(log, "dispatched").empty()) << log.dump(1);
  EXPECT_EQ(fake->runs("octo", "web").size(), 1u);
  int said = 0;
  for (const auto& k : get("/repos/octo/web/issues/" + std::to_string(pull) + "/comments"))
    said += k["body"].get<std::string>().find("item=ci-limit -->") != std::string::npos;
  EXPECT_EQ(said, 1);
}

}  // namespace
}  // namespace aw::test
