// A repository's loop: {rounds: N} and when: (docs/rounds.md): read, and refused with
// FILE:LINE:COL and the fix.
#include <gtest/gtest.h>

#include "config/config.h"
#include "env_guard.h"

namespace aw {
namespace {

class LoopConfig : public ::testing::Test {
 protected:
  void SetUp() override { env_.set("HOME", "/home/tester"); }
  std::string error_of(const std::string& repo_keys) {
    auto r = parse_config("repos:\n  web:\n    path: /x\n" + repo_keys, "config.yml");
    EXPECT_FALSE(r) << "accepted:\n" << repo_keys;
    return r ? "" : r.error().message;
  }
  EnvGuard env_;
};

TEST_F(LoopConfig, RoundsAndWhenAreReadAndDefaultToOneRoundAndNoCommand) {
  auto none = parse_config("repos:\n  web:\n    path: /x\n", "config.yml");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->repos.at("web").rounds, 1);
  EXPECT_TRUE(none->repos.at("web").when.empty());
  auto c = parse_config(
      "repos:\n  web:\n    path: /x\n    loop: {rounds: 3}\n    when: \"./still-failing "
      "--quiet\"\n",
      "config.yml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->repos.at("web").rounds, 3);
  EXPECT_EQ(c->repos.at("web").when, (Argv{"./still-failing", "--quiet"}));
}

TEST_F(LoopConfig, RoundsOutOfRangeOrNotANumberIsRefusedAtItsValue) {
  EXPECT_EQ(error_of("    loop: {rounds: 0}\n"),
            "config.yml:4:20: repos.web.loop.rounds: 0 is out of range; use 1 to 20");
  EXPECT_EQ(error_of("    loop: {rounds: 21}\n"),
            "config.yml:4:20: repos.web.loop.rounds: 21 is out of range; use 1 to 20");
  std::string word = error_of("    loop: {rounds: many}\n");
  EXPECT_NE(word.find("config.yml:4:20: repos.web.loop.rounds: 'many' is not a whole number"),
            std::string::npos)
      << word;
  EXPECT_NE(word.find("rounds: 3"), std::string::npos) << word;
}

TEST_F(LoopConfig, LoopMustBeAMapOfKnownKeys) {
  std::string scalar = error_of("    loop: 3\n");
  EXPECT_NE(scalar.find("config.yml:4:11: repos.web.loop:"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("loop: {rounds: 3}"), std::string::npos) << scalar;
  EXPECT_EQ(error_of("    loop: {round: 2}\n"),
            "config.yml:4:12: repos.web.loop.round: unknown key; did you mean 'rounds'?");
}

TEST_F(LoopConfig, WhenMustBeANonEmptyCommand) {
  std::string empty = error_of("    when: \"\"\n");
  EXPECT_NE(empty.find("config.yml:4:11: repos.web.when:"), std::string::npos) << empty;
  std::string map = error_of("    when: {run: x}\n");
  EXPECT_NE(map.find("config.yml:4:11: repos.web.when:"), std::string::npos) << map;
}

// issue 26 item 5: watch's follow-up limits on a pull request.
TEST_F(LoopConfig, FollowUpLimitsAreReadAndDefaultToFiveUnitsAndFiveMinutes) {
  auto none = parse_config("repos:\n  web:\n    path: /x\n", "config.yml");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->repos.at("web").follow_up.max_units_per_pr, 5);
  EXPECT_EQ(none->repos.at("web").follow_up.cooldown, 300);
  auto c = parse_config(
      "repos:\n  web:\n    path: /x\n    follow_up: {max_units_per_pr: 2, cooldown: 10m}\n",
      "config.yml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->repos.at("web").follow_up.max_units_per_pr, 2);
  EXPECT_EQ(c->repos.at("web").follow_up.cooldown, 600);
  auto zero = parse_config(
      "repos:\n  web:\n    path: /x\n    follow_up: {max_units_per_pr: 0, cooldown: 0}\n",
      "config.yml");
  ASSERT_TRUE(zero) << zero.error().message;
  EXPECT_EQ(zero->repos.at("web").follow_up.max_units_per_pr, 0);
  EXPECT_EQ(zero->repos.at("web").follow_up.cooldown, 0);
}

TEST_F(LoopConfig, FollowUpLimitsAreRefusedAtTheirValueWithTheFix) {
  std::string many = error_of("    follow_up: {max_units_per_pr: 51}\n");
  EXPECT_NE(many.find("config.yml:4:35: repos.web.follow_up.max_units_per_pr: 51 is out of range"),
            std::string::npos)
      << many;
  std::string word = error_of("    follow_up: {cooldown: soon}\n");
  EXPECT_NE(word.find("config.yml:4:27: repos.web.follow_up.cooldown: 'soon' is not a duration"),
            std::string::npos)
      << word;
  EXPECT_NE(word.find("cooldown: 5m"), std::string::npos) << word;
  std::string key = error_of("    follow_up: {max_units: 2}\n");
  EXPECT_NE(key.find("config.yml:4:17: repos.web.follow_up.max_units: unknown key"),
            std::string::npos)
      << key;
  std::string scalar = error_of("    follow_up: 3\n");
  EXPECT_NE(scalar.find("config.yml:4:16: repos.web.follow_up:"), std::string::npos) << scalar;
  EXPECT_NE(scalar.find("follow_up: {max_units_per_pr: 5, cooldown: 5m}"), std::string::npos)
      << scalar;
}

// issue 26, CI: follow_ci and follow_up.max_ci_attempts.
TEST_F(LoopConfig, FollowCiIsOffByDefaultAndMaxCiAttemptsIsThree) {
  auto none = parse_config("repos:\n  web:\n    path: /x\n", "config.yml");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->repos.at("web").follow_ci);
  EXPECT_EQ(none->repos.at("web").follow_up.max_ci_attempts, 3);
  auto c = parse_config(
      "repos:\n  web:\n    path: /x\n    follow_ci: true\n    follow_up: {max_ci_attempts: 1}\n",
      "config.yml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->repos.at("web").follow_ci);
  EXPECT_EQ(c->repos.at("web").follow_up.max_ci_attempts, 1);
}

TEST_F(LoopConfig, FollowCiAndMaxCiAttemptsAreRefusedAtTheirValueWithTheFix) {
  std::string yes = error_of("    follow_ci: yes\n");
  EXPECT_NE(yes.find("config.yml:4:16: repos.web.follow_ci: 'yes' is not true or false"),
            std::string::npos)
      << yes;
  EXPECT_NE(yes.find("write follow_ci: true"), std::string::npos) << yes;
  std::string zero = error_of("    follow_up: {max_ci_attempts: 0}\n");
  EXPECT_NE(zero.find("repos.web.follow_up.max_ci_attempts: 0 is out of range"), std::string::npos)
      << zero;
  std::string word = error_of("    follow_up: {max_ci_attempts: many}\n");
  EXPECT_NE(word.find("repos.web.follow_up.max_ci_attempts:"), std::string::npos) << word;
}

}  // namespace
}  // namespace aw
