// watch with run_on: actions against the fake GitHub (a FAKE: GitHub cannot be reached here): an
// admitted issue is claimed and dispatched to the repository's awaywork workflow (the issue as
// the dispatch's input) instead of run here, and its run is followed on the claim comment until
// it completes; nothing runs locally. A bad run_on is a config error naming where.
#include "watch_fixture.h"

namespace aw::test {
namespace {

class WatchActions : public WatchTest {
 protected:
  std::string ran_marker;

  void SetUp() override {
    watch_keys = "  poll_seconds: 5\n  run_on: actions\n  repos: {web: {}}\n";
    WatchTest::SetUp();
    ran_marker = tmp.path + "/the-agent-ran";
    write_agent("touch " + sq(ran_marker) + "\nprintf 'bravo\\n' > b.txt");
    write_watch_config();
    // The repository's caller workflow, on its default branch, as GitHub needs it to dispatch.
    std::string bare = tmp.path + "/fake-state/repos/octo/web.git", wt = tmp.path + "/wf";
    sh("git clone -q " + sq(bare) + " " + sq(wt));
    sh("mkdir -p .github/workflows && printf 'on:\\n  workflow_dispatch:\\n    inputs:\\n      "
       "issue: {type: string}\\njobs:\\n  unit:\\n    uses: awaywork/awaywork/.github/workflows/"
       "awaywork.yml@0123456789abcdef0123456789abcdef01234567\\n' > "
       ".github/workflows/awaywork.yml && git add . && git -c user.name=o -c user.email=o@x "
       "commit -qm workflow && git push -q origin HEAD:main",
       wt);
  }

  std::string claim_of(int64_t n) {
    for (const auto& c : get("/repos/octo/web/issues/" + std::to_string(n) + "/comments"))
      if (c["body"].get<std::string>().find("awaywork:claim") != std::string::npos)
        return c["body"];
    return "";
  }
};

TEST_F(WatchActions, AnAdmittedIssueIsDispatchedFollowedToItsEndAndNothingRunsHere) {
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
  label(n, "octo", "awaywork");
  auto log = watch_once();
  ASSERT_EQ(events(log, "claim").size(), 1u) << log.dump(1);
  ASSERT_EQ(events(log, "dispatched").size(), 1u) << log.dump(1);
  EXPECT_TRUE(events(log, "unit_spawned").empty()) << log.dump(1);
  auto runs = fake->runs("octo", "web");
  ASSERT_EQ(runs.size(), 1u) << runs.dump(1);
  EXPECT_EQ(runs[0]["workflow"], "awaywork.yml");
  EXPECT_EQ(runs[0]["ref"], "main");
  EXPECT_EQ(runs[0]["inputs"], nlohmann::json({{"issue", std::to_string(n)}}));
  EXPECT_EQ(runs[0]["actor"], "aw-bot");
  int64_t id = runs[0]["id"];
  std::string claim = claim_of(n);
  EXPECT_NE(claim.find("dispatched to GitHub Actions"), std::string::npos) << claim;
  EXPECT_NE(claim.find("/actions/runs/" + std::to_string(id)), std::string::npos) << claim;
  EXPECT_NE(claim.find("queued"), std::string::npos) << claim;

  fake->set_run("octo", "web", id, "in_progress");
  log = watch_once();
  ASSERT_EQ(events(log, "run_status").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "run_status")[0]["status"], "in progress");
  EXPECT_TRUE(events(log, "dispatched").empty()) << "dispatched twice: " << log.dump(1);
  claim = claim_of(n);
  EXPECT_NE(claim.find("in progress"), std::string::npos) << claim;
  EXPECT_NE(claim.find("state=active"), std::string::npos) << claim;

  fake->set_run("octo", "web", id, "completed", "success");
  log = watch_once();
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "released")[0]["state"], "done");
  claim = claim_of(n);
  EXPECT_NE(claim.find("Done: GitHub Actions run"), std::string::npos) << claim;
  EXPECT_NE(claim.find("succeeded"), std::string::npos) << claim;
  EXPECT_NE(claim.find("state=ended"), std::string::npos) << claim;
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:done"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:running"), 0);

  EXPECT_EQ(units_of(n), 0);
  EXPECT_NE(::access(ran_marker.c_str(), F_OK), 0) << "the agent ran on the watching machine";
  EXPECT_EQ(fake->runs("octo", "web").size(), 1u);
  EXPECT_TRUE(events(watch_once(), "dispatched").empty());
}

TEST_F(WatchActions, AFailedRunEndsTheClaimByTheFailurePolicy) {
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
  label(n, "octo", "awaywork");
  ASSERT_EQ(events(watch_once(), "dispatched").size(), 1u);
  int64_t id = fake->runs("octo", "web")[0]["id"];
  fake->set_run("octo", "web", id, "completed", "failure");
  auto log = watch_once();
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  EXPECT_EQ(events(log, "released")[0]["state"], "failed");
  EXPECT_NE(claim_of(n).find("failed (failure)"), std::string::npos) << claim_of(n);
  auto names = labels_of(n);
  EXPECT_EQ(std::count(names.begin(), names.end(), "awaywork:failed"), 1);
}

TEST_F(WatchActions, AMissingWorkflowFailsTheIssueWithGitHubsAnswer) {
  watch_keys = "  poll_seconds: 5\n  run_on: actions\n  workflow: other.yml\n  repos: {web: {}}\n";
  write_watch_config();
  int64_t n = issue("octo", "Add a b file", "Please add b.txt.");
  label(n, "octo", "awaywork");
  auto log = watch_once();
  EXPECT_TRUE(events(log, "dispatched").empty()) << log.dump(1);
  ASSERT_EQ(events(log, "released").size(), 1u) << log.dump(1);
  std::string claim = claim_of(n);
  EXPECT_NE(claim.find("could not be dispatched"), std::string::npos) << claim;
  EXPECT_NE(claim.find("other.yml"), std::string::npos) << claim;
  EXPECT_EQ(units_of(n), 0);
}

TEST_F(WatchActions, AnUnknownRunOnOrWorkflowIsAConfigErrorNamingWhere) {
  watch_keys = "  poll_seconds: 5\n  run_on: cloud\n  repos: {web: {workflow: ci/x.yml}}\n";
  write_watch_config();
  Captured c = aw({"watch", "--once"});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("config.yml:"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("cloud"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("actions"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("'ci/x.yml' is not a workflow file name"), std::string::npos) << c.err;
  EXPECT_TRUE(fake->runs("octo", "web").empty());
}

}  // namespace
}  // namespace aw::test
