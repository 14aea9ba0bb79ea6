// Issue 29: `watch` on a GitLab project with `follow_ci: true` (against the fake GitLab,
// tests/fakes/fake_gitlab.py, with real git and the awaywork binary): a failed pipeline on the
// head of awaywork's own merge request, with no note asking for anything, starts one follow-up
// (`run --pr app!N`, the failed job quoted in its task), as a failing check does on GitHub; a
// second pass starts nothing more; when the follow-up's head fails the same job again past
// follow_up.max_ci_attempts, nothing starts and one marked note says so, once.
#include <gtest/gtest.h>

#include <unistd.h>

#include <ctime>

#include "../fakes/fake_gitlab.h"
#include "../forge/awaywork_cli.h"
#include "../git/git_fixture.h"
#include "base/fs.h"
#include "event_lines.h"
#include "forge/ci_attempts.h"
#include "forge/gitlab/text.h"
#include "proc/capture.h"

namespace aw::test {
namespace {

const std::string kProject = "grp/sub/app";

class WatchGitlabPipelineTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitlab> fake;
  std::string token, home, agent;
  int64_t mr = 0;
  std::string branch, first_commit;

  void SetUp() override {
    fake = std::make_unique<FakeGitlab>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->error();
    std::string src = tmp.path + "/src";
    sh("git init -q -b main " + sq(src));
    sh("printf 'alpha\\n' > a.txt && git add a.txt && git -c user.name=t "
       "-c user.email=t@example.com commit -qm init",
       src);
    token = fake->add_user("aw-bot");
    ASSERT_TRUE(fake->add_project(kProject, src).is_object()) << fake->error();
    fake->member("grp", "aw-bot", 30);
    fake->member(kProject, "dev", 30);
    home = tmp.path + "/home";
    ASSERT_TRUE(make_dirs(home));
    agent = tmp.path + "/agent.sh";
    ASSERT_TRUE(write_file(agent,
                           "#!/bin/sh\nset -e\nprintf 'bravo\\n' > b.txt\nprintf '%s\\n' "
                           "'{\"type\":\"create_pull_request\",\"title\":\"Add b\",\"body\":"
                           "\"Adds b.txt.\"}' >> \"$AWAYWORK_OUTPUTS/requests.jsonl\"\n",
                           0755));
    ASSERT_TRUE(write_file(
        tmp.path + "/a.yml",
        "state_dir: " + tmp.path +
            "/state-a\nsandbox: {mode: preferred}\nagent: test\nagents:\n  test:\n    command: [" +
            agent + "]\nforges:\n  lab:\n    kind: gitlab\n    api_url: " + fake->api_url() +
            "\n    credential: GITLAB_TOKEN\nrepos:\n  app:\n    gitlab: " + kProject +
            "\n    follow_ci: true\n    follow_up: {max_ci_attempts: 1}\n"
            "watch:\n  poll_seconds: 5\n  repos: {app: {}}\n"));
    Captured set = aw({"secret", "set", "GITLAB_TOKEN"}, token);
    ASSERT_EQ(set.exit_code, 0) << set.out << set.err;

    // awaywork's own merge request, opened by a first pass on a Developer's labelled issue.
    int64_t iid = fake->control("POST", "projects/" + kProject + "/issues",
                                {{"username", "dev"}, {"title", "fix it"}, {"description", "x"}})
                      .value("iid", int64_t{0});
    fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/labels",
                  {{"username", "dev"}, {"add", nlohmann::json::array({"awaywork"})}});
    nlohmann::json log = watch_once();
    auto mrs = fake->control("GET", "projects/" + kProject + "/merge_requests");
    ASSERT_EQ(mrs.size(), 1u) << mrs.dump(2) << log.dump(1);
    mr = mrs[0]["iid"];
    branch = mrs[0]["source_branch"];
    first_commit = git("rev-parse refs/heads/" + branch);
    // The follow-up's agent: one change, no request of its own.
    ASSERT_TRUE(write_file(agent, "#!/bin/sh\nset -e\nprintf 'BRAVO\\n' > b.txt\n", 0755));
  }

  Captured aw(const std::vector<std::string>& args, const std::string& in = "") {
    return run_awaywork(tmp.path + "/a.yml", home, args, in);
  }

  nlohmann::json watch_once() {
    std::string log = tmp.path + "/a-watch.jsonl";
    (void)::unlink(log.c_str());
    Captured c = aw({"watch", "--once", "--log", log});
    std::string text = slurp(log);
    EXPECT_EQ(c.exit_code, 0) << c.out << c.err << "\nlog:\n" << text;
    return event_lines(text);
  }

  std::string git(const std::string& args) {
    return sh("git --git-dir=" + sq(tmp.path + "/fake-gitlab/repos/" + kProject + ".git") + " " +
              args);
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

  std::vector<nlohmann::json> mr_events(const nlohmann::json& log, const std::string& name) {
    std::vector<nlohmann::json> out;
    for (const auto& l : log)
      if (l.value("event", "") == name && l.value("merge_request", int64_t{0}) == mr)
        out.push_back(l);
    return out;
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
  nlohmann::json log = watch_once();
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
  nlohmann::json again = watch_once();
  EXPECT_TRUE(mr_events(again, "trigger_admitted").empty()) << again.dump(1);
  EXPECT_TRUE(mr_events(again, "unit_spawned").empty()) << again.dump(1);

  // The follow-up's head fails the same job: max_ci_attempts 1 is spent. Nothing starts, one
  // marked note says so, and a later pass says it no more.
  failed_pipeline();
  nlohmann::json limit = watch_once();
  EXPECT_EQ(mr_events(limit, "follow_up_ci_limit").size(), 1u) << limit.dump(1);
  EXPECT_TRUE(mr_events(limit, "unit_spawned").empty()) << limit.dump(1);
  nlohmann::json later = watch_once();
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
  nlohmann::json log = watch_once();
  EXPECT_TRUE(mr_events(log, "trigger_admitted").empty()) << log.dump(1);
  EXPECT_TRUE(mr_events(log, "unit_spawned").empty()) << log.dump(1);
  EXPECT_EQ(git("rev-parse refs/heads/" + branch), first_commit);
}

}  // namespace
}  // namespace aw::test
