// Issue 26: the reusable workflow's jobs hand awaywork the workflow's github.token, an
// installation token of the GitHub Actions app. GitHub answers its GET /user with 403 "Resource
// not accessible by integration" (the fake GitHub does the same for an installation's token; a
// FAKE: GitHub cannot be reached here). Inside Actions (GITHUB_ACTIONS=true), in the job commands
// (`run ... --artifact`, `apply --from`) only, awaywork takes its login as github-actions[bot]:
// the apply job publishes the draft pull request under it and a retried apply finds its own
// marked posts and publishes nothing twice. Anywhere else, and in watch or a run that publishes
// even inside Actions, the token is refused with an error naming the credential and the fix,
// before anything is written.
#include <regex>

#include "awaywork_cli.h"
#include "forge_fixture.h"

namespace aw::test {
namespace {

class InstallationToken : public ForgeTest {
 protected:
  std::string reader_token, actions_token, artifact;

  void SetUp() override {
    ForgeTest::SetUp();
    reader_token = fake->user("aw-reader");
    collaborator("aw-reader", "read");
    actions_token = fake->installation();  // github-actions[bot]
    ASSERT_EQ(actions_token.rfind("ghs_", 0), 0u) << fake->why();
    // github.token of a job with contents, pull-requests and issues: write.
    collaborator("github-actions[bot]", "write");
    write_agent(
        "printf 'bravo\\n' > b.txt\n"
        "printf '%s\\n' '{\"type\":\"create_pull_request\",\"title\":\"Add b\",\"body\":\"b "
        "added\"}' > \"$AWAYWORK_OUTPUTS/requests.jsonl\"");
    artifact = tmp.path + "/artifact";
  }

  // One job, as three_jobs_test.cc runs them: its own HOME (and secret store holding token as
  // GH_TOKEN), its own state folder; github_actions: GITHUB_ACTIONS's value in its environment
  // ("" = unset; the runner sets "true"); more: top-level keys appended to its config.
  Captured job(const std::string& name, const std::vector<std::string>& args,
               const std::string& token, const std::string& github_actions,
               const std::string& more = "") {
    std::string job_home = tmp.path + "/home-" + name;
    (void)make_dirs(job_home);
    std::string text = sh("cat " + sq(config));
    text = std::regex_replace(text, std::regex("state_dir: .*"),
                              "state_dir: " + tmp.path + "/state-" + name) +
           (more.empty() ? "" : "\n" + more);  // the base config may end without a newline
    std::string job_config = tmp.path + "/config-" + name + ".yml";
    EXPECT_TRUE(write_file(job_config, text));
    EXPECT_EQ(run_awaywork(job_config, job_home, {"secret", "set", "GH_TOKEN"}, token).exit_code,
              0);
    CaptureSpec s;
    s.argv = {awaywork_binary(), "--config", job_config};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.env = awaywork_env(job_home);
    if (!github_actions.empty()) s.env.push_back("GITHUB_ACTIONS=" + github_actions);
    s.stdin_data = "";
    auto r = capture(s);
    return r ? *r : Captured{-1, "", r.error().message};
  }

  // The agent job's artifact of a new issue's unit (a read-only user token: what it reads is
  // not what this test is about); its unit id.
  std::string agent_job(int64_t& n) {
    n = issue("octo", "Add b", "please add b.txt");
    Captured c = job(
        "agent", {"run", "--issue", "web#" + std::to_string(n), "--artifact", artifact, "--json"},
        reader_token, "");
    EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
    auto u = nlohmann::json::parse(c.out, nullptr, false);
    EXPECT_FALSE(u.is_discarded()) << c.out;
    return u.is_object() ? u.value("id", "") : "";
  }

  size_t pulls() { return get("/repos/octo/web/pulls?state=all").size(); }
};

TEST_F(InstallationToken, GetUserAnswers403ResourceNotAccessibleByIntegration) {
  auto [status, body] = fake->api("GET", "/user", actions_token);
  EXPECT_EQ(status, 403);
  EXPECT_EQ(body.value("message", ""), "Resource not accessible by integration") << body.dump();
  EXPECT_EQ(body.value("documentation_url", ""),
            "https://docs.github.com/rest/users/users#get-the-authenticated-user");
  // The same token may read the repository (and, with write, publish on it).
  EXPECT_EQ(fake->api("GET", "/repos/octo/web", actions_token).first, 200);
}

TEST_F(InstallationToken, InsideActionsTheApplyJobPublishesAsGithubActionsBot) {
  int64_t n = 0;
  std::string unit = agent_job(n);
  ASSERT_FALSE(unit.empty());
  Captured apply = job("apply", {"apply", "--from", artifact, "--json"}, actions_token, "true");
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  auto a = nlohmann::json::parse(apply.out, nullptr, false);
  ASSERT_FALSE(a.is_discarded()) << apply.out;
  EXPECT_EQ(a["applied"], true) << a.dump(2);
  auto prs = get("/repos/octo/web/pulls");
  ASSERT_EQ(prs.size(), 1u) << prs.dump(2);
  EXPECT_EQ(prs[0]["user"]["login"], "github-actions[bot]");
  EXPECT_EQ(prs[0]["head"]["ref"], "awaywork/" + unit);
  std::string body = prs[0]["body"];
  EXPECT_NE(body.find("<!-- awaywork:unit=" + unit + " item=pull sha="), std::string::npos) << body;
  for (const auto& e : fake->writes()) EXPECT_EQ(e["login"], "github-actions[bot]") << e.dump();

  // A retried apply job reads its own login the same way, finds its marked pull request and
  // comments by it, and posts nothing twice.
  auto said = [&] {
    return get("/repos/octo/web/issues/" + std::to_string(n) + "/comments").size();
  };
  size_t comments = said();
  Captured again = job("apply", {"apply", "--from", artifact, "--json"}, actions_token, "true");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(pulls(), 1u);
  EXPECT_EQ(said(), comments);
}

TEST_F(InstallationToken, OutsideActionsItIsRefusedNamingTheCredentialAndTheFix) {
  int64_t n = 0;
  ASSERT_FALSE(agent_job(n).empty());
  Captured apply = job("apply", {"apply", "--from", artifact}, actions_token, "");
  EXPECT_NE(apply.exit_code, 0) << apply.out << apply.err;
  for (const char* said :
       {"GET /user: 403 \"Resource not accessible by integration\"", "credential 'GH_TOKEN'",
        "installation token", "GITHUB_ACTIONS=true", "awaywork secret set GH_TOKEN"})
    EXPECT_NE(apply.err.find(said), std::string::npos) << said << "\n" << apply.err;
  EXPECT_EQ(apply.err.find(actions_token), std::string::npos) << "the token was printed";
  EXPECT_EQ(pulls(), 0u);
  EXPECT_EQ(fake->writes().size(), 0u) << fake->writes().dump(1);

  // GITHUB_ACTIONS must be exactly "true", as the runner sets it.
  Captured other = job("apply-other", {"apply", "--from", artifact}, actions_token, "1");
  EXPECT_NE(other.exit_code, 0) << other.out << other.err;
  EXPECT_NE(other.err.find("Resource not accessible by integration"), std::string::npos)
      << other.err;
  EXPECT_EQ(pulls(), 0u);
}

// Security review M2: GITHUB_ACTIONS=true alone does not make an installation token
// github-actions[bot]'s. With that login as its own, watch (or serve, or a run that publishes)
// would take every pull request any workflow of the repository opens as awaywork's own
// (pr_source.cc followable) and push to it. Only the workflow's job commands, `run ... --artifact`
// and `apply --from`, say so (Config::workflow_job, set by the command line); the others are
// refused, naming the token and the fix, before anything is read or written.
TEST_F(InstallationToken, InsideActionsWatchAndAPlainRunAreRefused) {
  int64_t n = issue("octo", "Add b", "please add b.txt");
  auto expect_refused = [&](const Captured& c, const std::string& what) {
    EXPECT_NE(c.exit_code, 0) << what << "\n" << c.out << c.err;
    for (const char* said :
         {"GET /user: 403 \"Resource not accessible by integration\"", "credential 'GH_TOKEN'",
          "installation token", "GITHUB_ACTIONS=true", "`run ... --artifact DIR`",
          "`apply --from DIR`", "never in watch, serve or a run that publishes",
          "awaywork secret set GH_TOKEN"})
      EXPECT_NE(c.err.find(said), std::string::npos) << what << ": " << said << "\n" << c.err;
    EXPECT_EQ(c.err.find(actions_token), std::string::npos) << what << ": the token was printed";
  };
  Captured run =
      job("run", {"run", "--issue", "web#" + std::to_string(n), "--json"}, actions_token, "true");
  expect_refused(run, "run --issue");
  Captured watch = job("watch", {"watch", "--once"}, actions_token, "true",
                       "watch:\n  poll_seconds: 5\n  repos: {web: {}}\n");
  expect_refused(watch, "watch --once");
  EXPECT_EQ(pulls(), 0u);
  EXPECT_EQ(fake->writes().size(), 0u) << fake->writes().dump(1);
  EXPECT_TRUE(get("/repos/octo/web/issues/" + std::to_string(n) + "/comments").empty());

  // The agent job's command, with the same token and environment, is github-actions[bot]'s: it
  // runs, holds its unit and writes the artifact (publishing is the apply job's, above).
  Captured agent = job("agent-actions",
                       {"run", "--issue", "web#" + std::to_string(n), "--artifact",
                        tmp.path + "/artifact-actions", "--json"},
                       actions_token, "true");
  EXPECT_EQ(agent.exit_code, 0) << agent.out << agent.err;
  EXPECT_EQ(pulls(), 0u);
}

}  // namespace
}  // namespace aw::test
