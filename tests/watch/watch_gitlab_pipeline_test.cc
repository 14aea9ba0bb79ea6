// Issue 29: `watch` on a GitLab project with `follow_ci: true` (against the fake GitLab,
// tests/fakes/fake_gitlab.py, with real git and the awaywork binary): a failed pipeline on the
// head of awaywork's own merge request, with no note asking for anything, starts one follow-up
// (`run --pr app!N`, the failed job quoted in its task), as a failing check does on GitHub; a
// second pass starts nothing more; when the follow-up's head fails the same job again past
// follow_up.max_ci_attempts, nothing starts and one marked note says so, once.
#include <gtest/gtest.h>

#include "forge/ci_attempts.h"
#include "forge/gitlab/text.h"

#include "watch_gitlab_fixture.h"

namespace aw::test {
namespace {

// awaywork's own merge request (watch_gitlab_fixture.h), its repository following CI with one
// attempt for a failing job.
class WatchGitlabPipelineTest : public WatchGitlabMrTest {
 protected:
  WatchGitlabPipelineTest() {
    repo_options = "    follow_ci: true\n    follow_up: {max_ci_attempts: 1}\n";
  }

  // A finished pipeline on the branch's head: job `test` failed (it may not fail).
  void failed_pipeline() {
    auto p = fake->control(
        "POST", "projects/" + kProject + "/pipelines",
        {{"username", "dev"},
         {"ref", branch},
         {"status", "failed"},
         {"jobs", nlohmann::json::array({{{"name", "test"},
                                          {"status", "failed"},
                                          {"trace", "FAIL: b.txt should say BRAVO\n"}},
                                         {{"name", "lint"}, {"status", "success"}}})}});
    ASSERT_TRUE(p.is_object()) << fake->error();
  }

  nlohmann::json mr_notes() {
    return fake
        ->api("GET",
              "/projects/grp%2Fsub%2Fapp/merge_requests/" + std::to_string(mr) +
                  "/notes?per_page=100",
              token)
        .body;
  }
};

TEST_F(WatchGitlabPipelineTest, AFailedPipelineAloneStartsOneFollowUpAndTheLimitStopsTheNext) {
  failed_pipeline();
  nlohmann::json log = watch_once("a");
  auto admitted = mr_events(log, "trigger_admitted");
  ASSERT_EQ(admitted.size(), 1u) << log.dump(1);
  EXPECT_EQ(admitted[0]["kind"], "check");
  EXPECT_NE(admitted[0]["reason"].get<std::string>().find("test"), std::string::npos)
      << admitted[0].dump();
  ASSERT_EQ(mr_events(log, "unit_spawned").size(), 1u) << log.dump(1);
  auto ended = mr_events(log, "follow_up_ended");
  ASSERT_EQ(ended.size(), 1u) << log.dump(1);
  ASSERT_EQ(ended[0]["state"], "done") << ended[0].dump(1);
  // One fast-forward commit on the merge request's branch.
  std::string commit = git("rev-parse refs/heads/" + branch);
  EXPECT_EQ(git("rev-parse " + branch + "^"), first_commit);
  EXPECT_EQ(git("show " + branch + ":b.txt"), "BRAVO");

  // The new head has no pipeline yet: a second pass starts nothing.
  nlohmann::json again = watch_once("a");
  EXPECT_TRUE(mr_events(again, "trigger_admitted").empty()) << again.dump(1);
  EXPECT_TRUE(mr_events(again, "unit_spawned").empty()) << again.dump(1);

  // The follow-up's head fails the same job: max_ci_attempts 1 is spent. Nothing starts, one
  // marked note says so, and a later pass says it no more.
  failed_pipeline();
  nlohmann::json limit = watch_once("a");
  EXPECT_EQ(mr_events(limit, "follow_up_ci_limit").size(), 1u) << limit.dump(1);
  EXPECT_TRUE(mr_events(limit, "unit_spawned").empty()) << limit.dump(1);
  nlohmann::json later = watch_once("a");
  EXPECT_TRUE(mr_events(later, "unit_spawned").empty()) << later.dump(1);
  EXPECT_EQ(git("rev-parse refs/heads/" + branch), commit);
  int said = 0;
  for (const auto& n : mr_notes()) {
    std::string body = n.value("body", "");
    if (body.find(ci_limit_marker(mr)) == std::string::npos) continue;
    ++said;
    EXPECT_EQ(n["author"]["username"], "aw-bot");
    EXPECT_FALSE(has_quick_action(body)) << body;
  }
  EXPECT_EQ(said, 1) << mr_notes().dump(1);
}

TEST_F(WatchGitlabPipelineTest, WithoutFollowCiAFailedPipelineStartsNothing) {
  std::string cfg = slurp(tmp.path + "/a.yml");
  size_t at = cfg.find("    follow_ci: true\n");
  ASSERT_NE(at, std::string::npos) << cfg;
  cfg.erase(at, std::string("    follow_ci: true\n").size());
  ASSERT_TRUE(write_file(tmp.path + "/a.yml", cfg));
  failed_pipeline();
  nlohmann::json log = watch_once("a");
  EXPECT_TRUE(mr_events(log, "trigger_admitted").empty()) << log.dump(1);
  EXPECT_TRUE(mr_events(log, "unit_spawned").empty()) << log.dump(1);
  EXPECT_EQ(git("rev-parse refs/heads/" + branch), first_commit);
}

}  // namespace
}  // namespace aw::test
