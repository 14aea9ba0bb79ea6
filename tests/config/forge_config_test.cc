// forges: and the forge keys of repos: (github:, forge:, task:, trust:, stop_after:,
// branch_prefix:, closing_keyword:): each lands in its field, each mistake is refused at its
// file:line:col with the fix.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class ForgeConfigTest : public ConfigFixture {};

TEST_F(ForgeConfigTest, EveryKeyLandsInItsField) {
  Config c = parse(R"(
forges:
  ghes:
    kind: github
    api_url: https://ghe.example.com/api/v3/
    credential: GHE_TOKEN
    ca_file: ~/corp.pem
repos:
  web:
    github: octo-org/web
    task: "Fix the issue below."
    trust: {roles: [admin, triage], users: [octocat], bots: ["renovate[bot]"]}
    stop_after: 2026-12-31
    branch_prefix: bots/aw-
    closing_keyword: true
)");
  const ForgeConfig& f = c.forges.at("ghes");
  EXPECT_EQ(f.api_url, "https://ghe.example.com/api/v3");
  EXPECT_EQ(f.credential, "GHE_TOKEN");
  EXPECT_EQ(f.ca_file, "/home/tester/corp.pem");
  const ForgeRepoConfig& r = c.repos.at("web").forge;
  EXPECT_EQ(r.github, "octo-org/web");
  EXPECT_EQ(r.forge, "ghes");  // implied: the only forge
  EXPECT_EQ(r.task, "Fix the issue below.");
  EXPECT_EQ(r.trust.roles, (std::vector<std::string>{"admin", "triage"}));
  EXPECT_EQ(r.trust.users, (std::vector<std::string>{"octocat"}));
  EXPECT_EQ(r.trust.bots, (std::vector<std::string>{"renovate[bot]"}));
  EXPECT_EQ(r.stop_after, 1798761599);  // 2026-12-31T23:59:59Z
  EXPECT_EQ(r.branch_prefix, "bots/aw-");
  EXPECT_TRUE(r.closing_keyword);
}

TEST_F(ForgeConfigTest, DefaultsAreGithubComAndTheWriteRoles) {
  Config c = parse("forges: {gh: {credential: gh}}\nrepos: {web: {github: o/web}}\n");
  EXPECT_EQ(c.forges.at("gh").api_url, "https://api.github.com");
  EXPECT_EQ(c.forges.at("gh").credential, "gh");
  const ForgeRepoConfig& r = c.repos.at("web").forge;
  EXPECT_EQ(r.trust.roles, (std::vector<std::string>{"admin", "maintain", "write"}));
  EXPECT_EQ(r.branch_prefix, "awaywork/");
  EXPECT_FALSE(r.closing_keyword);
  EXPECT_EQ(r.stop_after, 0);
  EXPECT_TRUE(c.repos.at("web").path.empty());
}

TEST_F(ForgeConfigTest, StopAfterTakesAnInstant) {
  Config c = parse(
      "forges: {gh: {credential: T}}\nrepos: {web: {github: o/web, stop_after: "
      "\"2026-01-02T03:04:05Z\"}}\n");
  EXPECT_EQ(c.repos.at("web").forge.stop_after, 1767323045);
}

TEST_F(ForgeConfigTest, MistakesAreRefusedAtTheirPlace) {
  EXPECT_NE(error_of("forges: {gh: {api_url: http://ghe.example.com, credential: T}}\n")
                .find("config.yml:1:24: forges.gh.api_url: 'http://ghe.example.com' is plain http"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {kind: gitlab, credential: T}}\n").find("forges.gh.kind"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {}}\n").find("missing 'credential'"), std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {credential: \"GH TOKEN\"}}\n").find("not a variable name"),
            std::string::npos);
  std::string both =
      error_of("forges: {gh: {credential: T}}\nrepos:\n  w: {path: /x, github: o/w}\n");
  EXPECT_NE(both.find("config.yml:3:"), std::string::npos) << both;
  EXPECT_NE(both.find("more than one of 'path', 'url' and 'github'"), std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {credential: T}}\nrepos: {w: {github: not-a-repo}}\n")
                .find("is not OWNER/REPO"),
            std::string::npos);
  EXPECT_NE(error_of("repos: {w: {github: o/w}}\n")
                .find("config.yml:1:9: repos.w: a github: repository needs a forge"),
            std::string::npos);
  EXPECT_NE(
      error_of("forges: {a: {credential: T}, b: {credential: U}}\nrepos: {w: {github: o/w}}\n")
          .find("several forges are defined (a, b); name one with forge:"),
      std::string::npos);
  EXPECT_NE(error_of("forges: {a: {credential: T}}\nrepos: {w: {github: o/w, forge: c}}\n")
                .find("'c' is not defined under forges:"),
            std::string::npos);
  EXPECT_NE(error_of("repos: {w: {path: /x, trust: {users: [a]}}}\n")
                .find("repos.w.trust: applies to forge repositories only"),
            std::string::npos);
}

TEST_F(ForgeConfigTest, TrustRefusesLoopsAndMisfiledLogins) {
  const std::string head = "forges: {gh: {credential: T}}\nrepos:\n  w:\n    github: o/w\n";
  EXPECT_NE(error_of(head + "    trust: {bots: [\"github-actions[bot]\"]}\n")
                .find("github-actions[bot] is never admitted"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    trust: {bots: [octocat]}\n").find("is not a bot login"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    trust: {users: [\"dependabot[bot]\"]}\n").find("is a bot"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    trust: {roles: [owner]}\n").find("trust.roles[0]"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    stop_after: 2026-02-30\n").find("is not a date"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    branch_prefix: \"-x\"\n").find("cannot start a branch name"),
            std::string::npos);
  EXPECT_NE(error_of(head + "    publish: {url: https://x/y.git}\n")
                .find("publishes to its forge; remove publish:"),
            std::string::npos);
}

}  // namespace
}  // namespace aw
