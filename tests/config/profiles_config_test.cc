// profiles:, inference: and the keys that refer to them (agents' provider/inference/profile/
// lend_login, repos' profile): each lands in its field, and each mistake is refused at its
// file:line:col with the fix.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class ProfilesConfig : public ConfigFixture {};

constexpr const char* kProfiles = R"(
profiles:
  web:
    vars: {NODE_ENV: test, _X: ""}
    secrets: [NPM_TOKEN, GH_PACKAGES]
  empty: {}
inference:
  claude-api:
    api: anthropic
    url: https://api.anthropic.com
    credential: ANTHROPIC_API_KEY
    max_requests: 200
    budget_tokens: 5000000000
    ca_file: ~/corp.pem
  local:
    api: openai
    url: "http://127.0.0.1:8080/v1"
    credential: OPENAI_KEY
agents:
  claude: {provider: claude, inference: claude-api, profile: web}
  codex: {provider: codex, lend_login: true, command: [codex, exec, "-"]}
  plain: {command: ./run.sh}
repos:
  site: {path: /src/site, profile: empty}
)";

TEST_F(ProfilesConfig, EveryKeyLandsInItsField) {
  Config c = parse(kProfiles);
  ASSERT_EQ(c.profiles.size(), 2u);
  const ProfileConfig& p = c.profiles.at("web");
  EXPECT_EQ(p.name, "web");
  EXPECT_EQ(p.vars, (std::map<std::string, std::string>{{"NODE_ENV", "test"}, {"_X", ""}}));
  EXPECT_EQ(p.secrets, (std::vector<std::string>{"NPM_TOKEN", "GH_PACKAGES"}));
  EXPECT_TRUE(c.profiles.at("empty").vars.empty());
  const InferenceConfig& i = c.inference.at("claude-api");
  EXPECT_EQ(i.name, "claude-api");
  EXPECT_EQ(i.api, "anthropic");
  EXPECT_EQ(i.url, "https://api.anthropic.com");
  EXPECT_EQ(i.credential, "ANTHROPIC_API_KEY");
  EXPECT_EQ(i.max_requests, 200);
  EXPECT_EQ(i.budget_tokens, 5000000000ull);
  EXPECT_EQ(i.ca_file, "/home/tester/corp.pem");
  EXPECT_EQ(c.inference.at("local").url, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(c.inference.at("local").max_requests, 0);
  const AgentConfig& a = c.agents.at("claude");
  EXPECT_EQ(a.provider, "claude");
  EXPECT_TRUE(a.command.empty()) << "the provider supplies the command";
  EXPECT_EQ(a.inference, "claude-api");
  EXPECT_EQ(a.profile, "web");
  EXPECT_FALSE(a.lend_login);
  EXPECT_TRUE(c.agents.at("codex").lend_login);
  EXPECT_EQ(c.agents.at("codex").command, (Argv{"codex", "exec", "-"}));
  EXPECT_EQ(c.agents.at("plain").provider, "");
  EXPECT_EQ(c.repos.at("site").profile, "empty");
}

TEST_F(ProfilesConfig, InferenceUrlDefaultsByApi) {
  Config c = parse(
      "inference:\n  a: {api: anthropic, credential: K}\n  o: {api: openai, "
      "credential: K}\n");
  EXPECT_EQ(c.inference.at("a").url, "https://api.anthropic.com");
  EXPECT_EQ(c.inference.at("o").url, "https://api.openai.com");
}

TEST_F(ProfilesConfig, UndefinedProfileIsReportedAtTheReferringKeyWithTheDefinedNames) {
  EXPECT_EQ(error_of("profiles:\n  web: {}\n  ci: {}\nagents:\n  a:\n    command: x\n"
                     "    profile: wbe\n"),
            "config.yml:7:14: agents.a.profile: 'wbe' is not defined under profiles:; did you "
            "mean 'web'? (defined: ci, web)");
  EXPECT_EQ(error_of("profiles:\n  web: {}\nrepos:\n  r: {path: /x, profile: zzz}\n"),
            "config.yml:4:26: repos.r.profile: 'zzz' is not defined under profiles:; defined: "
            "web");
  EXPECT_EQ(error_of("agents:\n  a: {command: x, profile: p}\n"),
            "config.yml:2:28: agents.a.profile: 'p' is not defined under profiles:; define it "
            "under profiles: (see docs/config.md)");
}

TEST_F(ProfilesConfig, UndefinedInferenceIsReportedAtTheReferringKey) {
  EXPECT_EQ(error_of("inference:\n  anthropic: {api: anthropic, credential: K}\nagents:\n"
                     "  a: {provider: claude, inference: openai}\n"),
            "config.yml:4:36: agents.a.inference: 'openai' is not defined under inference:; "
            "defined: anthropic");
}

TEST_F(ProfilesConfig, InferenceNeedsAKnownApiAndACredential) {
  std::string e = error_of("inference:\n  x: {api: antropic, credential: K}\n");
  EXPECT_EQ(e,
            "config.yml:2:12: inference.x.api: 'antropic' is not one of anthropic, openai; "
            "did you mean 'anthropic'?");
  e = error_of("inference:\n  x: {url: \"https://h\"}\n");
  EXPECT_NE(e.find("config.yml:2:3: inference.x: missing 'api'"), std::string::npos) << e;
  EXPECT_NE(e.find("config.yml:2:3: inference.x: missing 'credential'"), std::string::npos) << e;
  e = error_of("inference:\n  x: {api: openai, credential: K, max_request: 3}\n");
  EXPECT_NE(e.find("inference.x.max_request: unknown key; did you mean 'max_requests'?"),
            std::string::npos)
      << e;
}

TEST_F(ProfilesConfig, InferenceUrlMustBeHttpsOrLoopbackHttp) {
  std::string e =
      error_of("inference:\n  x: {api: openai, credential: K, url: \"http://api.openai.com\"}\n");
  EXPECT_NE(e.find("inference.x.url: 'http://api.openai.com' is plain http to another machine"),
            std::string::npos)
      << e;
  for (const char* bad :
       {"http://127.evil.com", "ftp://h", "https://u:p@h", "https://h/?k=1", "api.openai.com"})
    EXPECT_NE(error_of(std::string("inference:\n  x: {api: openai, credential: K, url: \"") + bad +
                       "\"}\n")
                  .find("inference.x.url"),
              std::string::npos)
        << bad;
  for (const char* good : {"http://localhost:9", "http://[::1]:9/v1", "http://127.0.0.1",
                           "https://llm.corp.example:8443/api"})
    parse(std::string("inference:\n  x: {api: openai, credential: K, url: \"") + good + "\"}\n");
}

TEST_F(ProfilesConfig, VarAndSecretNamesMustBeVariableNames) {
  EXPECT_EQ(error_of("profiles:\n  p:\n    vars: {1X: a}\n"),
            "config.yml:3:12: profiles.p.vars.1X: '1X' is not a variable name; use letters, "
            "digits and '_', not starting with a digit (write the name only, not NAME=value)");
  std::string e = error_of("profiles:\n  p:\n    secrets: [GOOD, \"A=b\"]\n");
  EXPECT_NE(e.find("config.yml:3:21: profiles.p.secrets[1]: 'A=b' is not a variable name"),
            std::string::npos)
      << e;
}

TEST_F(ProfilesConfig, NamesAwayworkSetsItselfAreRefused) {
  for (const char* name : {"HOME", "PATH", "TMPDIR", "AWAYWORK_UNIT", "AWAYWORK_ANYTHING"}) {
    std::string e = error_of(std::string("profiles:\n  p:\n    vars: {") + name + ": x}\n");
    EXPECT_NE(e.find("is set by awaywork itself"), std::string::npos) << e;
    e = error_of(std::string("profiles:\n  p:\n    secrets: [") + name + "]\n");
    EXPECT_NE(e.find("is set by awaywork itself"), std::string::npos) << e;
  }
}

TEST_F(ProfilesConfig, ASecretShapedVarValueIsRefusedWithoutRepeatingIt) {
  const std::string token = "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7";
  std::string e = error_of("profiles:\n  p:\n    vars: {GH_TOKEN: " + token + "}\n");
  EXPECT_EQ(e,
            "config.yml:3:22: profiles.p.vars.GH_TOKEN: the value of GH_TOKEN looks like a "
            "secret (a token or key) and config is plaintext; put it in the secret store: "
            "awaywork secret set GH_TOKEN, and list GH_TOKEN under the profile's secrets:");
  EXPECT_EQ(e.find(token), std::string::npos);
  e = error_of("profiles:\n  p:\n    vars: {K: \"sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0123\"}\n");
  EXPECT_NE(e.find("awaywork secret set K"), std::string::npos) << e;
}

TEST_F(ProfilesConfig, ANameIsEitherAVarOrASecret) {
  std::string e = error_of("profiles:\n  p:\n    vars: {X: a}\n    secrets: [X]\n");
  EXPECT_NE(e.find("profiles.p: 'X' is both a var and a secret"), std::string::npos) << e;
  e = error_of("profiles:\n  p:\n    secrets: [X, X]\n");
  EXPECT_NE(e.find("'X' is listed twice"), std::string::npos) << e;
}

TEST_F(ProfilesConfig, AnAgentWithoutCommandNeedsABuiltInProvider) {
  std::string e = error_of("agents:\n  a: {prompt: stdin}\n");
  EXPECT_NE(e.find("agents.a: missing 'command'"), std::string::npos) << e;
  e = error_of("agents:\n  a: {provider: command}\n");
  EXPECT_NE(e.find("agents.a: missing 'command'"), std::string::npos) << e;
  e = error_of("agents:\n  a: {provider: claud}\n");
  EXPECT_NE(e.find("agents.a.provider: 'claud' is not one of claude, codex, cursor, opencode, "
                   "gemini, command; did you mean 'claude'?"),
            std::string::npos)
      << e;
  for (const char* p : {"claude", "codex", "cursor", "opencode", "gemini"})
    EXPECT_EQ(parse(std::string("agents:\n  a: {provider: ") + p + "}\n").agents.at("a").provider,
              p);
}

TEST_F(ProfilesConfig, LendLoginIsABooleanForCodexOnly) {
  std::string e = error_of("agents:\n  a: {provider: claude, lend_login: true}\n");
  EXPECT_NE(e.find("agents.a.lend_login: only the codex provider borrows a login"),
            std::string::npos)
      << e;
  e = error_of("agents:\n  a: {provider: codex, lend_login: yes}\n");
  EXPECT_NE(e.find("agents.a.lend_login: 'yes' is not true or false"), std::string::npos) << e;
  EXPECT_FALSE(
      parse("agents:\n  a: {provider: codex, lend_login: false}\n").agents.at("a").lend_login);
}

}  // namespace
}  // namespace aw
