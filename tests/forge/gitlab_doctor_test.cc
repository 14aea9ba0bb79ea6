// `awaywork doctor`'s GitLab token check (issue 29, item 8) against the fake GitLab
// (tests/fakes/fake_gitlab.py): a token with api and write_repository passes; one without says
// which scopes are missing and how to get them; GitLab before 15.5 (no
// GET /personal_access_tokens/self) is a warning, not a failure; a refused token fails with the
// fix. The token never appears in what doctor prints.
#include <gtest/gtest.h>

#include "../fakes/fake_gitlab.h"
#include "../git/git_fixture.h"
#include "forge/gitlab/doctor_check.h"
#include "doctor/doctor.h"

namespace aw::test {
namespace {

class GitlabDoctorTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitlab> fake;
  ForgeConfig forge;

  void SetUp() override {
    fake = std::make_unique<FakeGitlab>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->error();
    forge.name = "lab";
    forge.kind = "gitlab";
    forge.api_url = fake->api_url();
    forge.credential = "GITLAB_TOKEN";
  }

  // A user whose token has these scopes; its token.
  std::string user(const std::string& name, const std::vector<std::string>& scopes) {
    auto u = fake->control("POST", "users", {{"username", name}, {"scopes", scopes}});
    return u.is_object() ? u["token"].get<std::string>() : "";
  }

  Check check(const std::string& token) {
    GitLabOptions opt;
    opt.api_url = fake->api_url();
    opt.credential = forge.credential;
    opt.max_retries = 0;
    auto t = beast_transport(
        TransportOptions{fake->api_url(), "", std::chrono::seconds(5), std::chrono::seconds(30)});
    EXPECT_TRUE(t) << t.error().message;
    GitLab gl(opt, token, std::move(*t), system_clock());
    return gitlab_token_check(forge, gl);
  }
};

TEST_F(GitlabDoctorTest, ATokenWithApiAndWriteRepositoryPasses) {
  std::string token = user("aw-bot", {"api", "read_user", "write_repository"});
  ASSERT_FALSE(token.empty()) << fake->error();
  Check c = check(token);
  EXPECT_TRUE(c.ok) << c.detail;
  EXPECT_NE(c.detail.find("api, read_user, write_repository"), std::string::npos) << c.detail;
  EXPECT_EQ(c.detail.find("warning"), std::string::npos) << c.detail;
  EXPECT_TRUE(c.fix.empty());
  auto log = fake->log();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back()["path"], "/personal_access_tokens/self");
  EXPECT_EQ(render({c}).find(token), std::string::npos);
}

TEST_F(GitlabDoctorTest, AReadOnlyTokenFailsNamingTheMissingScopesAndTheFix) {
  std::string token = user("reader", {"read_api", "read_repository"});
  Check c = check(token);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.detail.find("scopes: read_api, read_repository"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("missing: api, write_repository"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("api and write_repository"), std::string::npos) << c.fix;
  EXPECT_NE(c.fix.find("awaywork secret set GITLAB_TOKEN"), std::string::npos) << c.fix;
  // Only the push's scope missing: only it is named.
  Check half = check(user("half", {"api"}));
  EXPECT_FALSE(half.ok);
  EXPECT_NE(half.detail.find("missing: write_repository ("), std::string::npos) << half.detail;
  std::string out = render({c, half});
  EXPECT_EQ(out.find(token), std::string::npos);
}

TEST_F(GitlabDoctorTest, GitlabBefore15_5IsAWarningNotAFailure) {
  std::string token = user("aw-bot", {"api", "write_repository"});
  ASSERT_TRUE(fake->faults({{"version", "15.4.0"}}).is_object()) << fake->error();
  Check c = check(token);
  EXPECT_TRUE(c.ok) << c.detail;
  EXPECT_EQ(c.detail.rfind("warning; ", 0), 0u) << c.detail;
  EXPECT_NE(c.detail.find("api and write_repository"), std::string::npos) << c.detail;
}

TEST_F(GitlabDoctorTest, ARefusedTokenFailsWithTheFix) {
  Check c = check("glpat-notAtokenAtAll0000");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.detail.find("401"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("awaywork secret set GITLAB_TOKEN"), std::string::npos) << c.fix;
  forge.credential = "glab";
  Check g = check("glpat-notAtokenAtAll0000");
  EXPECT_NE(g.fix.find("glab auth login --hostname 127.0.0.1"), std::string::npos) << g.fix;
}

// A token GitLab will not describe to itself (403: too narrow) fails with the new token's fix.
TEST_F(GitlabDoctorTest, AForbiddenDescriptionFailsWithTheFix) {
  std::string token = user("narrow", {"write_repository"});
  ASSERT_TRUE(
      fake->faults(
              {{"server_errors", 1}, {"status", 403}, {"on", "GET /personal_access_tokens/self"}})
          .is_object())
      << fake->error();
  Check c = check(token);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.detail.find("403"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("without the api scope"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("awaywork secret set GITLAB_TOKEN"), std::string::npos) << c.fix;
}

// Without a gitlab forge, doctor asks nothing.
TEST(GitlabDoctor, NoGitlabForgeNoCheck) {
  Config cfg;
  ForgeConfig gh;
  gh.name = "hub";
  cfg.forges["hub"] = gh;
  EXPECT_TRUE(gitlab_checks(cfg).empty());
}

}  // namespace
}  // namespace aw::test
