// Issue 29 item 3: a GitLab repository's trust: lists GitLab usernames, and its bots (the users of
// project and group access tokens, project_42_bot_..., whose names do not end in [bot]) under
// bots:; each mistake refused at its file:line:col with the fix. GitHub's rules stay GitHub's.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class GitlabTrustConfigTest : public ConfigFixture {};

const std::string kLab = "forges: {lab: {kind: gitlab, credential: T}}\n";

TEST_F(GitlabTrustConfigTest, GitlabBotsAndUsernamesLandInTheirFields) {
  // trust: before gitlab: in the entry: the kind is the entry's, whatever the order.
  Config c = parse(kLab + R"(repos:
  app:
    trust: {users: [jane.doe, ci_user-2], bots: [project_42_bot_5f3a2c, group_7_bot_e1]}
    gitlab: grp/sub/app
)");
  const TrustConfig& t = c.repos.at("app").forge.trust;
  EXPECT_EQ(t.users, (std::vector<std::string>{"jane.doe", "ci_user-2"}));
  EXPECT_EQ(t.bots, (std::vector<std::string>{"project_42_bot_5f3a2c", "group_7_bot_e1"}));
}

TEST_F(GitlabTrustConfigTest, GitlabTrustMistakesAreRefusedAtTheirPlace) {
  std::string bot = error_of(kLab + "repos:\n  app:\n    gitlab: g/app\n    trust: {bots: "
                                    "[\"renovate[bot]\"]}\n");
  EXPECT_NE(bot.find("config.yml:5:20: repos.app.trust.bots[0]: 'renovate[bot]' is not a GitLab "
                     "username; write a list of GitLab bot usernames"),
            std::string::npos)
      << bot;
  std::string user = error_of(kLab + "repos: {app: {gitlab: g/app, trust: {users: "
                                     "[project_42_bot_5f3a2c]}}}\n");
  EXPECT_NE(user.find("'project_42_bot_5f3a2c' is an access token's bot user; list it under "
                      "bots:"),
            std::string::npos)
      << user;
  for (const char* bad : {"-x", ".x", "x.", "x.git", "a b", "x/y"})
    EXPECT_NE(error_of(kLab + "repos: {app: {gitlab: g/app, trust: {users: [\"" + bad + "\"]}}}\n")
                  .find("is not a GitLab username"),
              std::string::npos)
        << bad;
}

TEST_F(GitlabTrustConfigTest, GithubTrustStillWantsGithubLogins) {
  std::string e = error_of(
      "forges: {hub: {credential: T}}\nrepos: {web: {github: o/web, trust: {bots: [renovate]}}}\n");
  EXPECT_NE(e.find("'renovate' is not a bot login (NAME[bot])"), std::string::npos) << e;
  EXPECT_NE(error_of("forges: {hub: {credential: T}}\nrepos: {web: {github: o/web, trust: {users: "
                     "[jane.doe]}}}\n")
                .find("'jane.doe' is not a GitHub login"),
            std::string::npos);
}

}  // namespace
}  // namespace aw
