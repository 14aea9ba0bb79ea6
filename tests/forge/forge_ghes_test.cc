// GitHub Enterprise Server over TLS: the fake GitHub serving HTTPS with a test CA under a GHES
// base URL (https://localhost:PORT/api/v3, git at https://localhost:PORT/OWNER/REPO.git), the
// forge's ca_file trusting it for the API and for git; without it, a clear error.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "forge_fixture.h"

namespace aw::test {
namespace {

class ForgeGhes : public ForgeTest {
 protected:
  std::string ca;

  void SetUp() override {
    std::string d = tmp.path + "/tls";
    ASSERT_TRUE(make_dirs(d));
    // A test CA and a certificate it signed for localhost (FAKE, for this test only).
    sh("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=awaywork test CA (fake)' "
       "-keyout ca.key -out ca.pem 2>/dev/null && "
       "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout key.pem -out cert.csr "
       "2>/dev/null && "
       "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n"
       "extendedKeyUsage=serverAuth\\n' > ext.cnf && "
       "openssl x509 -req -in cert.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
       "-extfile ext.cnf -out cert.pem 2>/dev/null",
       d);
    ca = d + "/ca.pem";
    fake_args = {"--tls", d + "/cert.pem", d + "/key.pem"};
    ForgeTest::SetUp();
    ASSERT_EQ(fake->api_url().rfind("https://", 0), 0u) << fake->api_url();
    api_url = "https://localhost:" + std::to_string(fake->port()) + "/api/v3";
  }

  std::vector<nlohmann::json> logged(const std::string& kind, const std::string& method) {
    std::vector<nlohmann::json> out;
    for (const auto& e : fake->log())
      if (e.value("kind", "") == kind && e.value("method", "") == method) out.push_back(e);
    return out;
  }
};

TEST_F(ForgeGhes, AnIssueBecomesADraftPullRequestThroughTheCaFile) {
  extra_forge_keys = "    ca_file: " + ca + "\n";
  write_config();
  int64_t n = issue("octo", "Add b", "Please add b.txt.");
  auto u = run_issue(n);
  ASSERT_FALSE(u.is_null());
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  std::string host = "https://localhost:" + std::to_string(fake->port());
  EXPECT_EQ(u["pull_request"].get<std::string>().rfind(host + "/octo/web/pull/", 0), 0u)
      << u["pull_request"];
  EXPECT_NE(u["source"].get<std::string>().find("/mirrors/localhost"), std::string::npos)
      << "cloned over https into the mirror: " << u["source"];
  EXPECT_EQ(fake_git("rev-parse refs/heads/awaywork/" + u["id"].get<std::string>()), u["commit"]);
  // The draft was opened through the /api/v3 routes, the push went over https, both as aw-bot.
  auto pulls = logged("api", "POST");
  bool opened = false;
  for (const auto& e : pulls)
    opened = opened ||
             (e["path"] == "/repos/octo/web/pulls" && e["status"] == 201 && e["login"] == "aw-bot");
  EXPECT_TRUE(opened) << fake->log().dump(2);
  bool pushed = false;
  for (const auto& e : fake->writes())
    pushed = pushed || (e["kind"] == "git" && e["login"] == "aw-bot" && e["status"] == 200);
  EXPECT_TRUE(pushed) << fake->writes().dump(2);
}

TEST_F(ForgeGhes, WithoutTheCaItFailsNamingTheHostAndCaFile) {
  write_config();
  int64_t n = issue("octo", "t", "b");
  Captured c = aw({"run", "--issue", "web#" + std::to_string(n)});
  EXPECT_NE(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.err.find("TLS with localhost: certificate not accepted"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find("ca_file"), std::string::npos) << c.err;
  EXPECT_NE(c.err.find(api_url), std::string::npos) << c.err;
  EXPECT_TRUE(fake->writes().empty()) << fake->writes().dump(2);
}

// credential: gh: the token of the owner's real gh login (its hosts.yml, as `gh auth login`
// writes it, for the GHES host) reaches the fake, and no recorded byte holds it.
TEST_F(ForgeGhes, CredentialGhTakesTheTokenFromTheGhLoginAndKeepsItOutOfTheRecord) {
  std::string gh = sh("command -v gh || true");
  if (gh.empty()) {
    if (std::getenv("CI") && std::string(std::getenv("CI")) == "true") FAIL() << "gh missing";
    GTEST_SKIP() << "gh is not installed (scripts/deps, deps.d/forge.txt)";
  }
  ASSERT_EQ(token.rfind("ghp_", 0), 0u);
  ASSERT_EQ(token.size(), 40u) << "shaped like a real token: ghp_ + 36";
  std::string host = "localhost:" + std::to_string(fake->port());
  ASSERT_TRUE(make_dirs(home + "/.config/gh"));
  ASSERT_TRUE(write_file(
      home + "/.config/gh/hosts.yml",
      host + ":\n    oauth_token: " + token + "\n    user: aw-bot\n    git_protocol: https\n",
      0600));
  // The secret store's GH_TOKEN is refused by the fake: only gh's can work.
  Captured set = aw({"secret", "set", "GH_TOKEN"}, "ghp_" + std::string(36, 'Q'));
  ASSERT_EQ(set.exit_code, 0) << set.err;
  credential = "gh";
  extra_forge_keys = "    ca_file: " + ca + "\n";
  write_agent("env\nprintf 'bravo\\n' > b.txt");
  int64_t n = issue("octo", "Add b", "Please add b.txt.");
  Captured c = aw({"run", "--issue", "web#" + std::to_string(n), "--json"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  auto u = nlohmann::json::parse(c.out);
  ASSERT_EQ(u["state"], "done") << u.dump(2);
  EXPECT_FALSE(u["pull_request"].get<std::string>().empty());
  bool as_bot = false;
  for (const auto& e : fake->writes()) as_bot = as_bot || e["login"] == "aw-bot";
  EXPECT_TRUE(as_bot) << "gh's token reached the fake: " << fake->writes().dump(2);
  EXPECT_EQ(c.out.find(token), std::string::npos);
  EXPECT_EQ(c.err.find(token), std::string::npos);
  // Every file awaywork keeps (records, transcript with the phase's env, patch, requests...),
  // the mirrors' git objects aside, is free of it.
  int scanned = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(tmp.path + "/state")) {
    if (!f.is_regular_file() || f.path().string().find("/mirrors/") != std::string::npos) continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str().find(token), std::string::npos) << f.path();
    ++scanned;
  }
  EXPECT_GT(scanned, 3);
  std::string transcript = slurp(u["run_dir"].get<std::string>() + "/transcript.log");
  EXPECT_NE(transcript.find("AWAYWORK_UNIT="), std::string::npos)
      << "positive control: " << transcript;
}

}  // namespace
}  // namespace aw::test
