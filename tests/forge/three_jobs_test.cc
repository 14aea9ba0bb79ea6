// The reusable workflow's three jobs (.github/workflows/awaywork.yml) as three processes of the
// awaywork binary against the fake GitHub (a FAKE: GitHub cannot be reached here), each with its
// own HOME, secret store and state folder, and nothing but the artifact folder passed between
// them: the agent job (a read-only token) runs the unit held, `run --artifact`; the check job (no
// secret at all) runs `check --from`; the apply job (the write token) runs `apply --from`.
// A follow-up (issue 26; what `watch` with run_on: actions dispatches with the input
// pull-request) goes the same way: `run --pr NAME#N --artifact`, then `apply --from` publishes one
// fast-forward commit on the pull request's branch from a state folder that never saw the unit.
#include <fstream>
#include <regex>

#include "forge_fixture.h"

namespace aw::test {
namespace {

class ThreeJobs : public ForgeTest {
 protected:
  std::string reader_token, artifact;

  void SetUp() override {
    ForgeTest::SetUp();
    reader_token = fake->user("aw-reader");
    collaborator("aw-reader", "read");
    // The agent fails the unit if any GitHub token reached its environment.
    write_agent(
        "if env | grep -q 'ghp_'; then echo 'a token reached the agent' >&2; exit 9; fi\n"
        "printf 'bravo\\n' > b.txt\n"
        "printf '%s\\n' '{\"type\":\"create_pull_request\",\"title\":\"Add b\",\"body\":\"b "
        "added\"}' > \"$AWAYWORK_OUTPUTS/requests.jsonl\"");
    artifact = tmp.path + "/artifact";
  }

  // One job: its own HOME (and secret store), its own state folder, the same config otherwise.
  Captured job(const std::string& name, const std::vector<std::string>& args,
               const std::string& token = "") {
    std::string saved_home = home, saved_config = config;
    home = tmp.path + "/home-" + name;
    (void)make_dirs(home);
    std::string text = sh("cat " + sq(saved_config));
    text = std::regex_replace(text, std::regex("state_dir: .*"),
                              "state_dir: " + tmp.path + "/state-" + name);
    config = tmp.path + "/config-" + name + ".yml";
    EXPECT_TRUE(write_file(config, text));
    if (!token.empty()) {
      EXPECT_EQ(aw({"secret", "set", "GH_TOKEN"}, token).exit_code, 0);
    }
    Captured c = aw(args);
    home = saved_home;
    config = saved_config;
    return c;
  }

  size_t pulls() { return get("/repos/octo/web/pulls?state=all").size(); }
  size_t requests_so_far() { return fake->log().size(); }

  // The agent job's artifact of a new issue's unit.
  void agent_job() {
    int64_t n = issue("octo", "Add b", "please add b.txt");
    size_t before = requests_so_far();
    Captured c = job(
        "agent", {"run", "--issue", "web#" + std::to_string(n), "--artifact", artifact, "--json"},
        reader_token);
    ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
    auto u = nlohmann::json::parse(c.out, nullptr, false);
    ASSERT_FALSE(u.is_discarded()) << c.out;
    EXPECT_EQ(u["state"], "done");
    EXPECT_EQ(u["verdict"], "accepted");
    EXPECT_EQ(u.value("pull_request", ""), "");
    // The agent job wrote nothing to the forge (its token could not, and it did not try).
    auto log = fake->log();
    for (size_t i = before; i < log.size(); ++i)
      EXPECT_FALSE(log[i].value("write", false)) << log[i].dump();
    EXPECT_EQ(pulls(), 0u);
  }
};

TEST_F(ThreeJobs, ThePullRequestAppearsOnlyAfterTheCheckJobPassedAndOnlyFromTheApplyJob) {
  agent_job();
  for (const char* f :
       {"manifest.json", "patch.diff", "requests.jsonl", "verdict.json", "record.json"})
    EXPECT_EQ(sh("test -f " + sq(artifact + "/" + f) + " && echo yes"), "yes") << f;

  size_t before = requests_so_far();
  Captured check = job("check", {"check", "--from", artifact, "--json"});
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  auto v = nlohmann::json::parse(check.out, nullptr, false);
  EXPECT_EQ(v["accepted"], true) << check.out;
  EXPECT_EQ(v["paths"], nlohmann::json::array({"b.txt"}));
  EXPECT_EQ(requests_so_far(), before) << "the check job talked to the forge";
  EXPECT_EQ(pulls(), 0u);

  Captured apply = job("apply", {"apply", "--from", artifact, "--json"}, token);
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  auto a = nlohmann::json::parse(apply.out, nullptr, false);
  ASSERT_FALSE(a.is_discarded()) << apply.out;
  EXPECT_EQ(a["applied"], true);
  auto prs = get("/repos/octo/web/pulls");
  ASSERT_EQ(prs.size(), 1u);
  EXPECT_EQ(prs[0]["html_url"], a["pull_request"]);
  EXPECT_EQ(prs[0]["draft"], true);
  EXPECT_EQ(prs[0]["title"], "Add b");
  EXPECT_EQ(prs[0]["user"]["login"], "aw-bot");
  // Every write of the whole run was the apply job's, with the write token.
  for (const auto& e : fake->writes()) EXPECT_EQ(e["login"], "aw-bot") << e.dump();
  EXPECT_EQ(fake_git("show " + a["branch"].get<std::string>() + ":b.txt"), "bravo");

  // A retried apply job finds its marker and publishes nothing twice.
  Captured again = job("apply", {"apply", "--from", artifact, "--json"});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(pulls(), 1u);
}

TEST_F(ThreeJobs, APatchEditedAfterTheAgentJobIsRefusedByTheCheckAndTheApplyJob) {
  agent_job();
  sh("sed -i 's/^+bravo$/+bravo, and a planted line/' " + sq(artifact + "/patch.diff"));
  Captured check = job("check", {"check", "--from", artifact});
  EXPECT_EQ(check.exit_code, 5) << check.out << check.err;
  EXPECT_NE(check.err.find("patch.diff was changed after the agent job"), std::string::npos)
      << check.err;
  Captured apply = job("apply", {"apply", "--from", artifact}, token);
  EXPECT_EQ(apply.exit_code, 5) << apply.out << apply.err;
  EXPECT_NE(apply.err.find("patch.diff was changed after the agent job"), std::string::npos)
      << apply.err;
  EXPECT_EQ(pulls(), 0u);
  EXPECT_EQ(fake->writes().size(), 0u) << fake->writes().dump();
}

TEST_F(ThreeJobs, AnArtifactRewrittenWithItsManifestIsRefusedByTheCheckAgain) {
  agent_job();
  // Whoever rewrote the patch rewrote its sum too: the re-check with the config's bounds is what
  // refuses it (a protected path).
  std::string evil =
      "diff --git a/.github/workflows/x.yml b/.github/workflows/x.yml\n"
      "new file mode 100644\n--- /dev/null\n+++ b/.github/workflows/x.yml\n@@ -0,0 +1 @@\n+on: "
      "push\n";
  ASSERT_TRUE(write_file(artifact + "/patch.diff", evil, 0644));
  std::string sum = sh("sha256sum " + sq(artifact + "/patch.diff") + " | cut -d' ' -f1");
  std::string m = sh("cat " + sq(artifact + "/manifest.json"));
  auto j = nlohmann::json::parse(m);
  j["files"]["patch.diff"] = sum;
  ASSERT_TRUE(write_file(artifact + "/manifest.json", j.dump(2), 0644));
  Captured check = job("check", {"check", "--from", artifact, "--json"});
  EXPECT_EQ(check.exit_code, 5) << check.out << check.err;
  EXPECT_NE(check.out.find(".github/workflows/x.yml"), std::string::npos) << check.out;
  Captured apply = job("apply", {"apply", "--from", artifact}, token);
  EXPECT_EQ(apply.exit_code, 5) << apply.out << apply.err;
  EXPECT_NE(apply.err.find("refused it again"), std::string::npos) << apply.err;
  EXPECT_EQ(pulls(), 0u);
}

TEST_F(ThreeJobs, AnUnexpectedFileInTheArtifactIsRefusedByName) {
  agent_job();
  ASSERT_TRUE(write_file(artifact + "/run.sh", "#!/bin/sh\n", 0755));
  Captured check = job("check", {"check", "--from", artifact});
  EXPECT_EQ(check.exit_code, 5);
  EXPECT_NE(check.err.find("unexpected file 'run.sh'"), std::string::npos) << check.err;
}

// The agent job of a follow-up reads the pull request with a token of awaywork's login (on GitHub
// the job's github.token is one login in every job; this fake has one token per login) and writes
// nothing; the apply job, with a state folder of its own, publishes the commit on the branch.
TEST_F(ThreeJobs, AFollowUpIsHeldByTheAgentJobAndAppliedOnItsBranchByTheApplyJob) {
  collaborator("maint", "write");  // admitted (the default trust: admin, maintain, write)
  write_agent("printf 'bravo\\nline two\\nline three\\n' > b.txt");
  int64_t n = issue("octo", "Add a b file", "Please add b.txt with three lines.");
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  auto opened = get("/repos/octo/web/pulls");
  ASSERT_EQ(opened.size(), 1u) << opened.dump(2);
  int64_t pull = opened[0]["number"];
  std::string branch = opened[0]["head"]["ref"];
  std::string first = fake_git("rev-parse refs/heads/" + branch);
  std::string pulls_path = "repos/octo/web/pulls/" + std::to_string(pull);
  auto review = fake->control(
      "POST", pulls_path + "/reviews",
      {{"user", "maint"},
       {"event", "REQUEST_CHANGES"},
       {"body", "Two things before this can go in."},
       {"comments",
        nlohmann::json::array({{{"path", "b.txt"}, {"line", 1}, {"body", "Say BRAVO."}},
                               {{"path", "b.txt"}, {"line", 3}, {"body", "Drop this."}}})}});
  ASSERT_EQ(review.value("state", ""), "CHANGES_REQUESTED") << review.dump(2);
  write_agent(
      "if env | grep -q 'ghp_'; then echo 'a token reached the agent' >&2; exit 9; fi\n"
      "printf 'BRAVO\\nline two\\n' > b.txt");

  size_t before = requests_so_far();
  Captured agent =
      job("agent", {"run", "--pr", "web#" + std::to_string(pull), "--artifact", artifact, "--json"},
          token);
  ASSERT_EQ(agent.exit_code, 0) << agent.out << agent.err;
  auto held = nlohmann::json::parse(agent.out, nullptr, false);
  ASSERT_FALSE(held.is_discarded()) << agent.out;
  EXPECT_EQ(held["state"], "done") << held.dump(2);
  EXPECT_EQ(held["verdict"], "accepted") << held.dump(2);
  auto log = fake->log();
  for (size_t i = before; i < log.size(); ++i)
    EXPECT_FALSE(log[i].value("write", false)) << "the agent job wrote: " << log[i].dump();
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), first) << "held: nothing pushed";

  before = requests_so_far();
  Captured check = job("check", {"check", "--from", artifact, "--json"});
  ASSERT_EQ(check.exit_code, 0) << check.out << check.err;
  auto v = nlohmann::json::parse(check.out, nullptr, false);
  EXPECT_EQ(v["accepted"], true) << check.out;
  EXPECT_EQ(v["paths"], nlohmann::json::array({"b.txt"}));
  EXPECT_EQ(requests_so_far(), before) << "the check job talked to the forge";

  Captured apply = job("apply", {"apply", "--from", artifact, "--json"}, token);
  ASSERT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  auto a = nlohmann::json::parse(apply.out, nullptr, false);
  ASSERT_FALSE(a.is_discarded()) << apply.out;
  EXPECT_EQ(a["branch"], branch) << a.dump(2);
  std::string commit = fake_git("rev-parse refs/heads/" + branch);
  EXPECT_EQ(a["commit"], commit) << a.dump(2);
  EXPECT_EQ(fake_git("rev-parse " + branch + "^"), first) << "one fast-forward commit";
  EXPECT_EQ(fake_git("show " + branch + ":b.txt"), "BRAVO\nline two");
  EXPECT_EQ(pulls(), 1u) << "no new pull request";
  int replies = 0;
  for (const auto& c : get("/" + pulls_path + "/comments"))
    replies += c["user"]["login"] == "aw-bot" && c.contains("in_reply_to_id");
  EXPECT_EQ(replies, 2);
  auto requested = get("/" + pulls_path + "/requested_reviewers");
  ASSERT_EQ(requested["users"].size(), 1u) << requested.dump(2);
  EXPECT_EQ(requested["users"][0]["login"], "maint");
  for (const auto& e : fake->writes()) EXPECT_EQ(e["login"], "aw-bot") << e.dump();

  // A retried apply job finds the commit and the replies, and writes nothing more.
  Captured again = job("apply", {"apply", "--from", artifact, "--json"}, token);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(fake_git("rev-parse refs/heads/" + branch), commit);
  int after = 0;
  for (const auto& c : get("/" + pulls_path + "/comments")) after += c["user"]["login"] == "aw-bot";
  EXPECT_EQ(after, 2);
}

}  // namespace
}  // namespace aw::test
