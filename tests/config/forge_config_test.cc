// forges: and the forge keys of repos: (github:, forge:, task:, trust:, stop_after:,
// branch_prefix:, closing_keyword:, resume:): each lands in its field, each mistake is refused at
// its file:line:col with the fix.
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
    resume: true
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
  EXPECT_TRUE(r.resume);
}

TEST_F(ForgeConfigTest, DefaultsAreGithubComAndTheWriteRoles) {
  Config c = parse("forges: {gh: {credential: gh}}\nrepos: {web: {github: o/web}}\n");
  EXPECT_EQ(c.forges.at("gh").api_url, "https://api.github.com");
  EXPECT_EQ(c.forges.at("gh").credential, "gh");
  const ForgeRepoConfig& r = c.repos.at("web").forge;
  EXPECT_EQ(r.trust.roles, (std::vector<std::string>{"admin", "maintain", "write"}));
  EXPECT_EQ(r.branch_prefix, "awaywork/");
  EXPECT_FALSE(r.closing_keyword);
  EXPECT_FALSE(r.resume);  // a session is kept only when the owner asks
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
  EXPECT_NE(error_of("forges: {gh: {kind: gitea, credential: T}}\n")
                .find("forges.gh.kind: 'gitea' is not one of github, gitlab"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {}}\n").find("missing 'credential'"), std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {credential: \"GH TOKEN\"}}\n").find("not a variable name"),
            std::string::npos);
  std::string both =
      error_of("forges: {gh: {credential: T}}\nrepos:\n  w: {path: /x, github: o/w}\n");
  EXPECT_NE(both.find("config.yml:3:"), std::string::npos) << both;
  EXPECT_NE(both.find("more than one of 'path', 'url', 'github' and 'gitlab'"), std::string::npos);
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
  EXPECT_NE(error_of("repos: {w: {path: /x, resume: true}}\n")
                .find("repos.w.resume: applies to forge repositories only"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {gh: {credential: T}}\nrepos: {w: {github: o/w, resume: yes}}\n")
                .find("write resume: true or false"),
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

// Issue 29: a GitLab forge (gitlab.com by default, or self-managed) and a nested project.
TEST_F(ForgeConfigTest, GitlabForgeDefaultsToGitlabCom) {
  Config c = parse(R"(
forges:
  lab: {credential: glab, kind: gitlab}
repos:
  web: {gitlab: group/sub.group/web-app}
)");
  const ForgeConfig& f = c.forges.at("lab");
  EXPECT_EQ(f.kind, "gitlab");
  EXPECT_EQ(f.api_url, "https://gitlab.com/api/v4");  // kind came after: the default follows it
  EXPECT_EQ(f.credential, "glab");
  EXPECT_EQ(c.repos.at("web").forge.gitlab, "group/sub.group/web-app");
  EXPECT_TRUE(c.repos.at("web").forge.github.empty());
  EXPECT_EQ(c.repos.at("web").forge.forge, "lab");
  // GitHub stays the default kind.
  EXPECT_EQ(parse("forges: {gh: {credential: T}}\n").forges.at("gh").kind, "github");
}

TEST_F(ForgeConfigTest, GitlabSelfManagedKeysLandInTheirFields) {
  Config c = parse(R"(
forges:
  corp:
    api_url: https://gitlab.corp.example/api/v4/
    kind: gitlab
    credential: GITLAB_TOKEN
    ca_file: ~/corp.pem
  hub: {credential: gh}
repos:
  app: {gitlab: a/b/c/d, forge: corp}
  web: {github: o/web, forge: hub}
)");
  const ForgeConfig& f = c.forges.at("corp");
  EXPECT_EQ(f.api_url, "https://gitlab.corp.example/api/v4");
  EXPECT_EQ(f.credential, "GITLAB_TOKEN");
  EXPECT_EQ(f.ca_file, "/home/tester/corp.pem");
  EXPECT_EQ(c.repos.at("app").forge.gitlab, "a/b/c/d");
  EXPECT_EQ(c.repos.at("web").forge.forge, "hub");
}

TEST_F(ForgeConfigTest, GitlabMistakesAreRefusedAtTheirPlace) {
  EXPECT_NE(
      error_of("forges: {lab: {kind: gitlab, api_url: http://gitlab.example, credential: T}}\n")
          .find("config.yml:1:39: forges.lab.api_url: 'http://gitlab.example' is plain http"),
      std::string::npos);
  // Each CLI login belongs to its own kind.
  EXPECT_NE(error_of("forges: {lab: {kind: gitlab, credential: gh}}\n")
                .find("forges.lab.credential: 'gh' is the GitHub login, and this forge is kind "
                      "gitlab; write credential: glab"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {hub: {credential: glab}}\n").find("'glab' is the GitLab login"),
            std::string::npos);
  EXPECT_NE(error_of("forges: {lab: {kind: gitlab}}\n")
                .find("missing 'credential'; name the secret holding the token, e.g. credential: "
                      "GITLAB_TOKEN"),
            std::string::npos);
  const std::string lab = "forges: {lab: {kind: gitlab, credential: T}}\n";
  for (const char* bad : {"web", "/g/web", "g//web", "g/web/", "g/-web", "g/web.git", "g/we b"})
    EXPECT_NE(error_of(lab + "repos: {w: {gitlab: \"" + bad + "\"}}\n")
                  .find("is not a GitLab project path"),
              std::string::npos)
        << bad;
  std::string kind = error_of(lab + "repos:\n  w: {github: o/w}\n");
  EXPECT_NE(kind.find("config.yml:3:3: repos.w: github: names a GitHub project, but forge 'lab' "
                      "is kind gitlab"),
            std::string::npos)
      << kind;
  EXPECT_NE(error_of("forges: {hub: {credential: T}}\nrepos: {w: {gitlab: g/w}}\n")
                .find("gitlab: names a GitLab project, but forge 'hub' is kind github"),
            std::string::npos);
  EXPECT_NE(error_of("repos: {w: {gitlab: g/w}}\n")
                .find("a gitlab: repository needs a forge; define one, e.g. forges: {gitlab: "
                      "{kind: gitlab, credential: GITLAB_TOKEN}}"),
            std::string::npos);
  EXPECT_NE(error_of(lab + "repos: {w: {gitlab: g/w, github: o/w}}\n")
                .find("more than one of 'path', 'url', 'github' and 'gitlab'"),
            std::string::npos);
  EXPECT_NE(error_of(lab + "repos: {w: {gitlab: g/w, publish: {url: https://x/y.git}}}\n")
                .find("a gitlab: repository publishes to its forge; remove publish:"),
            std::string::npos);
}

// agent_forge: read (issue 27 item 2): the egress proxy adds the forge's credential for the
// repository's own reads, so the API must be https at a host name the sandbox's allowlist reaches.
TEST_F(ForgeConfigTest, AgentForgeReadNeedsAnHttpsApiTheAllowlistReaches) {
  Config c = parse(R"(
sandbox: {network: allowlist, allow: [api.github.com]}
forges: {gh: {credential: GH_TOKEN}}
repos:
  web: {github: o/web, agent_forge: read}
  api: {github: o/api, agent_forge: "off"}
  cli: {github: o/cli}
)");
  EXPECT_TRUE(c.repos.at("web").forge.agent_forge_read);
  EXPECT_FALSE(c.repos.at("api").forge.agent_forge_read);
  EXPECT_FALSE(c.repos.at("cli").forge.agent_forge_read);
  // Without the egress proxy nobody would add the credential.
  std::string e =
      error_of("forges: {gh: {credential: T}}\nrepos: {web: {github: o/web, agent_forge: read}}\n");
  EXPECT_NE(e.find("config.yml:2:43: repos.web.agent_forge: the forge's credential is added by "
                   "the egress proxy, which runs only with sandbox: {network: allowlist, allow: "
                   "[api.github.com]}"),
            std::string::npos)
      << e;
  // The API host not allowed: no request would reach it.
  e = error_of(
      "sandbox: {network: allowlist, allow: [example.com]}\nforges: {gh: {credential: T}}\n"
      "repos: {web: {github: o/web, agent_forge: read}}\n");
  EXPECT_NE(e.find("config.yml:3:43: repos.web.agent_forge: the forge's API host "
                   "'api.github.com' is not in sandbox.allow"),
            std::string::npos)
      << e;
  // A loopback http:// API: the proxy reaches a forge over verified TLS only.
  e = error_of(
      "sandbox: {network: allowlist, allow: [127.0.0.1]}\n"
      "forges: {gh: {api_url: \"http://127.0.0.1:8080\", credential: T}}\n"
      "repos: {web: {github: o/web, agent_forge: read}}\n");
  EXPECT_NE(e.find("config.yml:3:43: repos.web.agent_forge: forge 'gh' has api_url "
                   "http://127.0.0.1:8080: the egress proxy reaches"),
            std::string::npos)
      << e;
  // Only read (or off), and only on a forge repository.
  e = error_of(
      "sandbox: {network: allowlist, allow: [api.github.com]}\nforges: {gh: {credential: T}}\n"
      "repos: {web: {github: o/web, agent_forge: write}}\n");
  EXPECT_NE(e.find("config.yml:3:43: repos.web.agent_forge: 'write' is not one of"),
            std::string::npos)
      << e;
  e = error_of("repos: {web: {path: /src/web, agent_forge: read}}\n");
  EXPECT_NE(e.find("repos.web.agent_forge: applies to forge repositories only"), std::string::npos)
      << e;
  // A GitLab project on a self-managed host the allowlist names by wildcard.
  c = parse(R"(
sandbox: {network: allowlist, allow: ["*.example.com"]}
forges: {gl: {kind: gitlab, api_url: "https://gitlab.example.com/api/v4", credential: GL_TOKEN}}
repos: {web: {gitlab: grp/web, agent_forge: read}}
)");
  EXPECT_TRUE(c.repos.at("web").forge.agent_forge_read);
}

}  // namespace
}  // namespace aw
