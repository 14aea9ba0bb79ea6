// Issue 29 item 3: GitLab's bot users (project and group access tokens' users, and any user whose
// JSON says `bot: true`) are admitted only when the repository lists them under trust.bots, never
// by their role: a token's user gets the Developer role or higher by construction, and what a CI
// job posts with it would otherwise start units.
#include <gtest/gtest.h>

#include "forge/admission.h"
#include "forge/gitlab/model.h"

namespace aw {
namespace {

// Every login asked is a Maintainer: only the bot rule can refuse.
RoleLookup maintainers(int& asked) {
  return [&asked](const std::string&) -> Result<std::string> {
    ++asked;
    return std::string("maintain");
  };
}

TEST(GitlabBots, ABotIsAdmittedOnlyWhenListedWhateverItsRole) {
  auto flagged = gitlab_user_from_json(
      nlohmann::json{{"id", 7}, {"username", "deploy-helper"}, {"bot", true}}, "a note's author");
  ASSERT_TRUE(flagged) << flagged.error().message;
  EXPECT_TRUE(flagged->user.bot);  // GitLab's own word
  auto named = gitlab_user_from_json(nlohmann::json{{"id", 8}, {"username", "project_42_bot_5f3a"}},
                                     "a note's author");
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_TRUE(named->user.bot);  // a note's author carries no `bot`: the token user's name says it
  auto person = gitlab_user_from_json(nlohmann::json{{"id", 9}, {"username", "jane.doe"}},
                                      "a note's author");
  ASSERT_TRUE(person) << person.error().message;
  EXPECT_FALSE(person->user.bot);

  int asked = 0;
  TrustConfig none;
  Admission unlisted(none, 0, "aw-bot", maintainers(asked), 0);
  EXPECT_FALSE(unlisted.check(flagged->user).admitted);
  EXPECT_FALSE(unlisted.check(named->user).admitted);
  EXPECT_EQ(unlisted.check(named->user).reason, "a bot not listed under trust.bots, not admitted");
  EXPECT_TRUE(unlisted.check(person->user).admitted);
  EXPECT_EQ(asked, 1);  // a bot's role is never asked

  TrustConfig listed;
  listed.bots = {"Project_42_Bot_5F3A"};  // GitLab's usernames are case-insensitive
  Admission admits(listed, 0, "aw-bot", maintainers(asked), 0);
  EXPECT_TRUE(admits.check(named->user).admitted);
  EXPECT_EQ(admits.check(named->user).reason, "listed bot");
  EXPECT_FALSE(admits.check(flagged->user).admitted);  // another bot: still not listed
}

TEST(GitlabBots, AwayworksOwnBotUserIsNeverAdmittedEvenWhenListed) {
  auto self = gitlab_user_from_json(
      nlohmann::json{{"id", 3}, {"username", "project_42_bot_aa"}, {"bot", true}}, "GET /user");
  ASSERT_TRUE(self) << self.error().message;
  TrustConfig t;
  t.bots = {"project_42_bot_aa"};
  int asked = 0;
  Admission a(t, 0, self->user.login, maintainers(asked), 0);
  EXPECT_FALSE(a.check(self->user).admitted);
  EXPECT_EQ(a.check(self->user).reason, "awaywork's own login, never admitted");
}

}  // namespace
}  // namespace aw
