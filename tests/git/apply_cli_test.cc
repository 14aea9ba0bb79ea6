// `awaywork apply ID` end to end with the real binary, and the awaywork binary itself serving as
// git's askpass for a push to an authenticated smart-HTTP remote (http_test_server.h).
#include <nlohmann/json.hpp>

#include "git_fixture.h"
#include "http_test_server.h"
#include "secrets/store.h"

namespace aw::test {
namespace {

const std::string kToken = "ghp_TESTONLYcli00000000000000000000000cc";

std::string awaywork_binary() {
  return std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
}

class OneSecret : public SecretStore {
 public:
  std::string backend() const override { return "one secret (test)"; }
  Result<std::string> get(const std::string& name) override {
    if (name != "forge") return fail("no secret named '{}'", name);
    return kToken;
  }
  Status set(const std::string&, const std::string&) override { return fail("read-only"); }
  Status remove(const std::string&) override { return fail("read-only"); }
  Result<std::vector<std::string>> names() override { return std::vector<std::string>{"forge"}; }
};

class ApplyCliTest : public GitTest {
 protected:
  std::string config;
  void SetUp() override {
    GitTest::SetUp();
    config = tmp.path + "/config.yml";
  }
  void agent(const std::string& body) {
    std::string a = tmp.path + "/agent";
    ASSERT_TRUE(write_file(a, "#!/bin/sh\n" + body + "\n", 0755));
    ASSERT_TRUE(write_file(config, "state_dir: " + tmp.path +
                                       "/state\nagent: test\nagents:\n  test:\n"
                                       "    command: [" +
                                       a + "]\nrepos:\n  src:\n    path: " + src_dir + "\n"));
  }
  Captured aw(std::vector<std::string> args) {
    CaptureSpec s;
    s.argv = {awaywork_binary(), "--config", config};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.env = {"PATH=/usr/bin:/bin", "HOME=" + tmp.path, "GIT_CONFIG_NOSYSTEM=1",
             "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"};
    auto r = capture(s);
    return r ? *r : Captured{-1, "", r.error().message};
  }
  std::string run_unit(const std::string& prompt) {
    Captured c = aw({"run", "--repo", "src", "--prompt", prompt, "--json"});
    auto j = nlohmann::json::parse(c.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << c.out << c.err;
    return j.is_discarded() ? "" : j.value("id", "");
  }
};

TEST_F(ApplyCliTest, ApplyPublishesAnAcceptedUnitOnceThenFindsItsMarker) {
  agent("printf 'bravo by agent\\n' > b.txt");
  std::string id = run_unit("change b");
  ASSERT_FALSE(id.empty());
  // Whatever the run itself published is moved aside (test setup), so apply starts clean.
  sh("git update-ref -d refs/heads/awaywork/" + id, src_dir);

  Captured first = aw({"apply", id, "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto j = nlohmann::json::parse(first.out);
  EXPECT_EQ(j["already_applied"], false);
  EXPECT_EQ(j["branch"], "awaywork/" + id);
  std::string commit = j["commit"];
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/" + id, src_dir), commit);
  EXPECT_EQ(sh("git show awaywork/" + id + ":b.txt", src_dir), "bravo by agent");
  EXPECT_NE(sh("git log -1 --format=%B awaywork/" + id, src_dir).find("Awaywork-Unit: " + id),
            std::string::npos);

  Captured second = aw({"apply", id});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("already applied"), std::string::npos) << second.out;
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/" + id, src_dir), commit);
  Captured show = aw({"show", id, "--json"});
  EXPECT_EQ(nlohmann::json::parse(show.out)["commit"], commit);
}

TEST_F(ApplyCliTest, ApplyRefusesAUnitTheCheckRefused) {
  agent("mkdir -p .github && printf 'x\\n' > .github/ci.yml");
  std::string id = run_unit("touch ci");
  ASSERT_FALSE(id.empty());
  Captured c = aw({"apply", id});
  EXPECT_EQ(c.exit_code, 5) << c.out << c.err;
  EXPECT_NE(c.err.find("was not accepted by the output check"), std::string::npos) << c.err;
  EXPECT_NE(
      sh_capture("git rev-parse --verify --quiet refs/heads/awaywork/" + id, src_dir).exit_code, 0);
}

// Issue 38, item 2: a verdict.json whose accepted is not a boolean (a corrupt or edited run
// folder) is an error naming the field, not a type_error that ended apply in std::terminate.
TEST_F(ApplyCliTest, AWronglyTypedVerdictFieldIsAnErrorNamingIt) {
  agent("printf 'bravo by agent\\n' > b.txt");
  std::string id = run_unit("change b");
  ASSERT_FALSE(id.empty());
  sh("git update-ref -d refs/heads/awaywork/" + id, src_dir);
  std::string verdict = tmp.path + "/state/runs/" + id + "/verdict.json";
  ASSERT_TRUE(write_file(verdict, R"({"accepted": "yes", "paths": ["b.txt"]})"));
  Captured c = aw({"apply", id, "--json"});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.err.find(verdict + ": field \"accepted\": expected a boolean, got string"),
            std::string::npos)
      << c.err;
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << c.out;
  EXPECT_EQ(j["applied"], false);
  ASSERT_TRUE(write_file(verdict, R"({"accepted": true, "paths": ["b.txt", 7]})"));
  c = aw({"apply", id});
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.err.find(verdict + ": field \"paths[1]\": expected a string, got number"),
            std::string::npos)
      << c.err;
  EXPECT_NE(
      sh_capture("git rev-parse --verify --quiet refs/heads/awaywork/" + id, src_dir).exit_code, 0);
}

// The product binary is the askpass: git execs it directly, it answers from its environment.
TEST_F(ApplyCliTest, TheAwayworkBinaryIsGitsAskpassForAnHttpRemote) {
  std::string srv = tmp.path + "/srv";
  sh("mkdir -p " + sq(srv) + " && git clone -q --bare " + sq(src_dir) + " " + sq(srv + "/r.git"));
  Clone c = clone_at(base);
  ASSERT_TRUE(write_file(work + "/b.txt", "bravo by agent\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;

  GitHttpTestServer server(srv, "x-access-token", kToken);
  OneSecret store;
  PublishRequest req;
  req.target.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/r.git";
  req.target.branch = "main";
  req.target.credential = "forge";
  req.target.secrets = &store;
  req.unit_id = "cli-1";
  req.base_commit = base;
  req.patch = p->text;
  req.checked_paths = p->paths;
  req.message = "m";
  req.scratch_dir = scratch;
  req.askpass = awaywork_binary();
  auto r = publish(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_GT(server.authorized(), 0);
  EXPECT_EQ(sh("git --git-dir=" + sq(srv + "/r.git") + " rev-parse refs/heads/awaywork/cli-1"),
            r->commit);
}

}  // namespace
}  // namespace aw::test
