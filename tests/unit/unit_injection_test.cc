// A unit's injected secrets (issue 27): the config's rules joined with the values read, into the
// egress proxy's options, the phase's placeholders and the record's redaction list.
#include "unit/unit_injection.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>

#include "isolate/choose/choose.h"
#include "proxy/egress_policy.h"
#include "unit/agent_forge.h"

namespace aw {
namespace {

// Fake tokens shaped like real ones; never real credentials.
const std::string kNpm = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123";
const std::string kPass = "glpat-FAKEfakeFAKEfake1234";

Config config() {
  Config c;
  InjectRule npm;
  npm.host = "npm.example.com";
  npm.methods = {"GET"};
  npm.paths = {"/pkg/"};
  InjectRule git;
  git.host = "git.example.com";
  git.basic_user = "deploy";
  InjectRule api = git;
  api.host = "api.example.com";
  api.header = "PRIVATE-TOKEN";
  api.value = "{secret}";
  api.basic_user.clear();
  c.secrets["NPM_TOKEN"] = SecretConfig{"NPM_TOKEN", {npm}, 3};
  c.secrets["GIT_PASS"] = SecretConfig{"GIT_PASS", {git, api}, 5};
  return c;
}

TEST(UnitInjection, RulesGetTheirValuesAndThePhaseOnlyPlaceholders) {
  std::vector<InjectedSecret> read = {
      {"NPM_TOKEN", kNpm, "awaywork-placeholder-NPM_TOKEN-00112233445566778899aabbccddeeff"},
      {"GIT_PASS", kPass, "awaywork-placeholder-GIT_PASS-ffeeddccbbaa99887766554433221100"}};
  UnitInjection u = make_unit_injection(config(), read);
  ASSERT_EQ(u.rules.size(), 3u);
  EXPECT_EQ(u.rules[0].secret, "NPM_TOKEN");
  EXPECT_EQ(u.rules[0].value, kNpm);
  EXPECT_EQ(u.rules[0].host, "npm.example.com");
  EXPECT_EQ(u.rules[0].methods, std::vector<std::string>{"GET"});
  EXPECT_EQ(u.rules[0].paths, std::vector<std::string>{"/pkg/"});
  EXPECT_EQ(injected_value(u.rules[0]), "Bearer " + kNpm);
  EXPECT_EQ(u.rules[1].basic_user, "deploy");
  EXPECT_EQ(u.rules[2].header, "PRIVATE-TOKEN");
  EXPECT_EQ(injected_value(u.rules[2]), kPass);
  EXPECT_EQ(u.env, (std::vector<std::string>{"NPM_TOKEN=" + read[0].placeholder,
                                             "GIT_PASS=" + read[1].placeholder}));
  for (const auto& e : u.env) {
    EXPECT_EQ(e.find(kNpm), std::string::npos) << e;
    EXPECT_EQ(e.find(kPass), std::string::npos) << e;
  }
  EXPECT_EQ(u.placeholders.at(read[1].placeholder), "GIT_PASS");
  for (const auto& lit : {kNpm, kPass, read[0].placeholder, read[1].placeholder})
    EXPECT_NE(std::find(u.literals.begin(), u.literals.end(), lit), u.literals.end()) << lit;
  EgressProxyOptions o;
  u.into(o);
  EXPECT_EQ(o.inject.size(), 3u);
  EXPECT_EQ(o.placeholders, u.placeholders);
}

TEST(UnitInjection, NothingWithoutBothARuleAndAValue) {
  Config c = config();
  c.secrets["EMPTY"] = SecretConfig{"EMPTY", {}, 9};
  UnitInjection u = make_unit_injection(
      c, {{"EMPTY", kNpm, "awaywork-placeholder-EMPTY-00"}, {"OTHER", kPass, "p"}});
  EXPECT_TRUE(u.empty());
  EXPECT_TRUE(u.env.empty());
  EXPECT_TRUE(u.literals.empty());
  EXPECT_TRUE(make_unit_injection(c, {}).empty());
}

TEST(UnitInjection, TheRecordNamesEachSecretAndItsHostsNeverAValue) {
  std::vector<InjectedSecret> read = {
      {"NPM_TOKEN", kNpm, "awaywork-placeholder-NPM_TOKEN-00112233445566778899aabbccddeeff"},
      {"GIT_PASS", kPass, "awaywork-placeholder-GIT_PASS-ffeeddccbbaa99887766554433221100"}};
  std::vector<std::string> notes = injection_notes(make_unit_injection(config(), read));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("secret GIT_PASS is added by the egress proxy for git.example.com, "
                          "api.example.com"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("secret NPM_TOKEN is added by the egress proxy for npm.example.com"),
            std::string::npos)
      << notes[1];
  for (const auto& n : notes)
    for (const auto& s : read) {
      EXPECT_EQ(n.find(s.value), std::string::npos) << n;
      EXPECT_EQ(n.find(s.placeholder), std::string::npos) << n;
    }
  EXPECT_TRUE(injection_notes(UnitInjection{}).empty());
}

// An isolation that starts no egress proxy must refuse a unit with rules: its secrets would be
// accepted by the config and never added (isolation none, sandbox off; the others ask the same).
TEST(UnitInjection, AnIsolationWithoutTheEgressProxyRefusesInjectedSecrets) {
  std::vector<InjectedSecret> read = {
      {"NPM_TOKEN", kNpm, "awaywork-placeholder-NPM_TOKEN-00112233445566778899aabbccddeeff"}};
  UnitInjection u = make_unit_injection(config(), read);
  Config c = config();
  c.isolation = Isolation::none;
  c.sandbox.mode = SandboxMode::off;
  IsolationSpec spec;
  EXPECT_TRUE(make_isolator(c, spec, "unit-1")) << "no rules: nothing to refuse";
  u.into(spec.egress);
  auto iso = make_isolator(c, spec, "unit-1");
  ASSERT_FALSE(iso);
  EXPECT_NE(iso.error().message.find("NPM_TOKEN"), std::string::npos) << iso.error().message;
  EXPECT_NE(iso.error().message.find("sandbox mode off"), std::string::npos) << iso.error().message;
  EXPECT_EQ(iso.error().message.find(kNpm), std::string::npos);
  EXPECT_TRUE(injection_needs_egress(IsolationSpec{}, "x"));
}

TEST(UnitInjection, TheTestHookIsOffUnlessSetAndThenSaysSo) {
  ::unsetenv("AWAYWORK_TEST_EGRESS_UPSTREAM");
  EgressProxyOptions o;
  EXPECT_EQ(apply_egress_test_upstream(o), std::nullopt);
  EXPECT_FALSE(o.allow_private_upstream);
  EXPECT_TRUE(o.static_hosts.empty());
  ::setenv("AWAYWORK_TEST_EGRESS_UPSTREAM", "/tmp/ca.pem npm.example.test other.test", 1);
  auto note = apply_egress_test_upstream(o);
  ::unsetenv("AWAYWORK_TEST_EGRESS_UPSTREAM");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("test hook"), std::string::npos) << *note;
  EXPECT_TRUE(o.allow_private_upstream);
  EXPECT_EQ(o.ca_file, "/tmp/ca.pem");
  EXPECT_EQ(o.static_hosts.at("other.test"), "127.0.0.1");
  EXPECT_EQ(o.static_hosts.size(), 2u);
}

TEST(UnitInjection, ThePhasesTrustTheUnitsCaThroughEveryClientsVariableAndTheProxyHoldsIt) {
  auto env = ca_bundle_env("/run/u/ca-bundle.pem");
  std::vector<std::string> names;
  for (const auto& [k, v] : env) {
    names.push_back(k);
    EXPECT_EQ(v, "/run/u/ca-bundle.pem") << k;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                                      "PIP_CERT", "GIT_SSL_CAINFO", "CURL_CA_BUNDLE",
                                      "CARGO_HTTP_CAINFO", "NPM_CONFIG_CAFILE"}));
  UnitInjection u;
  auto ca = UnitCa::make({"npm.example.test"});
  ASSERT_TRUE(ca) << ca.error().message;
  u.ca = *ca;
  EgressProxyOptions o;
  u.into(o);
  EXPECT_EQ(o.ca, u.ca) << "the proxy issues with the CA whose certificate the phases trust";
}

// ---- the read-only forge for the agent (agent_forge: read, issue 27 item 2) ----

const std::string kGhToken = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123";

Config forge_config(const std::string& kind, const std::string& api_url, const std::string& path) {
  Config c;
  ForgeConfig f;
  f.name = "forge";
  f.kind = kind;
  f.api_url = api_url;
  f.credential = "FORGE_TOKEN";
  c.forges["forge"] = f;
  RepoConfig r;
  r.name = "web";
  (kind == "gitlab" ? r.forge.gitlab : r.forge.github) = path;
  r.forge.forge = "forge";
  r.forge.agent_forge_read = true;
  c.repos["web"] = r;
  return c;
}

std::string env_of(const UnitInjection& u, const std::string& name) {
  for (const auto& kv : u.env)
    if (kv.starts_with(name + "=")) return kv.substr(name.size() + 1);
  return "<unset>";
}

TEST(AgentForge, GithubReadsOfItsOwnRepositoryGetTheTokenAndNothingElseDoes) {
  Config c = forge_config("github", "https://api.github.com", "octo-org/web");
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, c.repos.at("web"), kGhToken));
  ASSERT_EQ(u.rules.size(), 1u);
  const EgressInjection& r = u.rules[0];
  EXPECT_EQ(r.secret, "AGENT_FORGE");
  EXPECT_EQ(r.host, "api.github.com");
  EXPECT_EQ(injected_value(r), "Bearer " + kGhToken);
  EXPECT_TRUE(r.exclusive);
  const std::string h = "api.github.com";
  for (const char* ok : {"/repos/octo-org/web/issues?state=all", "/repos/octo-org/web",
                         "/repos/octo-org/web/actions/jobs/7/logs", "/repos/octo-org/web/pulls/3",
                         "/repos/octo-org/web/commits/abc/check-runs"})
    EXPECT_EQ(matching_injections(u.rules, h, "GET", ok).size(), 1u) << ok;
  EXPECT_EQ(matching_injections(u.rules, h, "HEAD", "/repos/octo-org/web/issues").size(), 1u);
  EXPECT_EQ(outside_exclusive_rule(u.rules, h, "GET", "/repos/octo-org/web/issues"), std::nullopt);
  // Writes, other repositories, look-alike names, dot segments, GraphQL: refused, no token.
  for (const char* m : {"POST", "PATCH", "PUT", "DELETE"})
    EXPECT_EQ(outside_exclusive_rule(u.rules, h, m, "/repos/octo-org/web/issues"), "AGENT_FORGE")
        << m;
  for (const char* bad :
       {"/repos/other/repo/issues", "/repos/octo-org/web-private/issues", "/repos/octo-org/webx",
        "/repos/octo-org/web/../private/issues", "/repos/octo-org/web/%2e%2e/private",
        "/repos/octo-org/web/..", "/graphql", "/user", "/REPOS/octo-org/web/issues"}) {
    EXPECT_TRUE(matching_injections(u.rules, h, "GET", bad).empty()) << bad;
    EXPECT_EQ(outside_exclusive_rule(u.rules, h, "GET", bad), "AGENT_FORGE") << bad;
  }
  // Another host is no business of this rule (a log host after GitHub's redirect).
  EXPECT_EQ(outside_exclusive_rule(u.rules, "results.example.net", "GET", "/log"), std::nullopt);
  // The phases hold the placeholder in gh's variables, and what points gh at github.com.
  std::string ph = env_of(u, "GH_TOKEN");
  EXPECT_TRUE(ph.starts_with("awaywork-placeholder-AGENT_FORGE-")) << ph;
  EXPECT_EQ(env_of(u, "GITHUB_TOKEN"), ph);
  EXPECT_EQ(env_of(u, "GH_ENTERPRISE_TOKEN"), "<unset>");
  EXPECT_EQ(env_of(u, "GH_HOST"), "github.com");
  EXPECT_EQ(env_of(u, "GH_REPO"), "octo-org/web");
  EXPECT_EQ(env_of(u, "GITHUB_API_URL"), "https://api.github.com");
  for (const auto& kv : u.env) EXPECT_EQ(kv.find(kGhToken), std::string::npos) << kv;
  EXPECT_EQ(u.placeholders.at(ph), "AGENT_FORGE");
  EXPECT_NE(std::find(u.literals.begin(), u.literals.end(), kGhToken), u.literals.end());
  EXPECT_NE(std::find(u.literals.begin(), u.literals.end(), ph), u.literals.end());
  ASSERT_TRUE(u.ca);
  EXPECT_TRUE(u.ca->issue("api.github.com"));
  EXPECT_NE(injection_notes(u)[0].find("AGENT_FORGE is added by the egress proxy for "
                                       "api.github.com"),
            std::string::npos);
}

TEST(AgentForge, EnterpriseServerPathsCarryTheApiPrefixAndGhGetsItsHost) {
  Config c = forge_config("github", "https://ghe.example.com:8443/api/v3", "o/r");
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, c.repos.at("web"), kGhToken));
  ASSERT_EQ(u.rules.size(), 1u);
  EXPECT_EQ(u.rules[0].host, "ghe.example.com");
  EXPECT_EQ(
      matching_injections(u.rules, "ghe.example.com", "GET", "/api/v3/repos/o/r/issues").size(),
      1u);
  EXPECT_TRUE(matching_injections(u.rules, "ghe.example.com", "GET", "/repos/o/r/issues").empty());
  EXPECT_EQ(env_of(u, "GH_HOST"), "ghe.example.com:8443");
  EXPECT_EQ(env_of(u, "GH_REPO"), "ghe.example.com:8443/o/r");
  EXPECT_EQ(env_of(u, "GH_ENTERPRISE_TOKEN"), env_of(u, "GH_TOKEN"));
}

TEST(AgentForge, GitlabUsesPrivateTokenUnderTheEncodedProjectPath) {
  Config c = forge_config("gitlab", "https://gitlab.example.com/api/v4", "grp/sub/proj");
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, c.repos.at("web"), kGhToken));
  ASSERT_EQ(u.rules.size(), 1u);
  const EgressInjection& r = u.rules[0];
  EXPECT_EQ(r.header, "PRIVATE-TOKEN");
  EXPECT_EQ(injected_value(r), kGhToken);
  const std::string h = "gitlab.example.com";
  for (const char* ok :
       {"/api/v4/projects/grp%2Fsub%2Fproj/issues",
        "/api/v4/projects/grp%2fsub%2fproj/jobs/9/trace", "/api/v4/projects/grp%2Fsub%2Fproj"})
    EXPECT_EQ(matching_injections(u.rules, h, "GET", ok).size(), 1u) << ok;
  for (const char* bad :
       {"/api/v4/projects/grp%2Fsub%2Fother/issues", "/api/v4/projects/grp%2Fsub%2Fproj%2Fx",
        "/api/v4/projects/grp%2Fsub%2Fproj/..%2f..%2fother", "/api/v4/projects/1/issues"})
    EXPECT_EQ(outside_exclusive_rule(u.rules, h, "GET", bad), "AGENT_FORGE") << bad;
  EXPECT_EQ(outside_exclusive_rule(u.rules, h, "POST", "/api/v4/projects/grp%2Fsub%2Fproj/notes"),
            "AGENT_FORGE");
  EXPECT_TRUE(env_of(u, "GITLAB_TOKEN").starts_with("awaywork-placeholder-AGENT_FORGE-"));
  EXPECT_EQ(env_of(u, "GITLAB_HOST"), "https://gitlab.example.com");
}

TEST(AgentForge, GithubNumericPathsOfItsOwnIdOnlyAndOnlyWhenTheIdIsKnown) {
  Config c = forge_config("github", "https://api.github.com", "octo-org/web");
  const std::string h = "api.github.com";
  // Without the id (no publisher session read it): the numeric form stays refused.
  UnitInjection none;
  ASSERT_TRUE(add_agent_forge(none, c, c.repos.at("web"), kGhToken));
  EXPECT_EQ(outside_exclusive_rule(none.rules, h, "GET", "/repositories/123/issues"),
            "AGENT_FORGE");
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, c.repos.at("web"), kGhToken, 123));
  ASSERT_EQ(u.rules.size(), 1u);
  for (const char* ok : {"/repositories/123", "/repositories/123/issues?page=2&state=all",
                         "/repositories/123/actions/jobs/7/logs", "/repos/octo-org/web/issues"})
    EXPECT_EQ(matching_injections(u.rules, h, "GET", ok).size(), 1u) << ok;
  EXPECT_EQ(matching_injections(u.rules, h, "HEAD", "/repositories/123/pulls").size(), 1u);
  // Look-alike ids (a prefix of the id, the id as a prefix), dot segments, writes: refused.
  for (const char* bad :
       {"/repositories/1234", "/repositories/1234/issues", "/repositories/12/issues",
        "/repositories/12", "/repositories/0123/issues", "/repositories/123x/issues",
        "/repositories/123/../124/issues", "/repositories/123/%2e%2e/124", "/repositories/",
        "/repositories/124/issues"}) {
    EXPECT_TRUE(matching_injections(u.rules, h, "GET", bad).empty()) << bad;
    EXPECT_EQ(outside_exclusive_rule(u.rules, h, "GET", bad), "AGENT_FORGE") << bad;
  }
  EXPECT_EQ(outside_exclusive_rule(u.rules, h, "POST", "/repositories/123/issues"), "AGENT_FORGE");
  // GHES: under the API prefix, as the name's paths are.
  Config ghes = forge_config("github", "https://ghe.example.com/api/v3", "o/r");
  UnitInjection e;
  ASSERT_TRUE(add_agent_forge(e, ghes, ghes.repos.at("web"), kGhToken, 7));
  EXPECT_EQ(matching_injections(e.rules, "ghe.example.com", "GET", "/api/v3/repositories/7/issues")
                .size(),
            1u);
  EXPECT_TRUE(
      matching_injections(e.rules, "ghe.example.com", "GET", "/repositories/7/issues").empty());
}

TEST(AgentForge, GitlabNumericProjectIdOfItsOwnOnly) {
  Config c = forge_config("gitlab", "https://gitlab.example.com/api/v4", "grp/proj");
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, c.repos.at("web"), kGhToken, 42));
  ASSERT_EQ(u.rules.size(), 1u);
  const std::string h = "gitlab.example.com";
  for (const char* ok : {"/api/v4/projects/42", "/api/v4/projects/42/issues?page=2",
                         "/api/v4/projects/42/jobs/9/trace", "/api/v4/projects/grp%2Fproj/issues"})
    EXPECT_EQ(matching_injections(u.rules, h, "GET", ok).size(), 1u) << ok;
  for (const char* bad :
       {"/api/v4/projects/421", "/api/v4/projects/421/issues", "/api/v4/projects/4/issues",
        "/api/v4/projects/4", "/api/v4/projects/042/issues", "/api/v4/projects/42%2Fx",
        "/api/v4/projects/42/..%2f43/issues", "/projects/42/issues"}) {
    EXPECT_TRUE(matching_injections(u.rules, h, "GET", bad).empty()) << bad;
    EXPECT_EQ(outside_exclusive_rule(u.rules, h, "GET", bad), "AGENT_FORGE") << bad;
  }
  EXPECT_EQ(outside_exclusive_rule(u.rules, h, "POST", "/api/v4/projects/42/notes"), "AGENT_FORGE");
}

TEST(AgentForge, NothingUnlessAskedAndAnErrorWithoutATokenOrAnHttpsHost) {
  Config c = forge_config("github", "https://api.github.com", "o/r");
  RepoConfig off = c.repos.at("web");
  off.forge.agent_forge_read = false;
  UnitInjection u;
  ASSERT_TRUE(add_agent_forge(u, c, off, kGhToken));
  EXPECT_TRUE(u.empty());
  EXPECT_TRUE(u.env.empty());
  auto none = add_agent_forge(u, c, c.repos.at("web"), "");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("repos.web"), std::string::npos) << none.error().message;
  Config plain = forge_config("github", "http://127.0.0.1:8080", "o/r");
  auto http = add_agent_forge(u, plain, plain.repos.at("web"), kGhToken);
  ASSERT_FALSE(http);
  EXPECT_EQ(http.error().message.find(kGhToken), std::string::npos);
  EXPECT_TRUE(u.empty()) << "a refused forge adds nothing";
}

}  // namespace
}  // namespace aw
