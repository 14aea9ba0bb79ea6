// secrets: (issue 27): secrets the egress proxy adds to requests, never handed to a phase. Each
// rule lands in its field, and each rule that could not keep the promise is refused at its
// file:line:col with the fix.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class SecretsConfig : public ConfigFixture {
 protected:
  // A file whose sandbox allows the bound hosts, with the given secrets: section appended.
  static std::string with(const std::string& secrets) {
    return "sandbox:\n  network: allowlist\n  allow: [npm.example.com, \"*.gitlab.example\"]\n"
           "secrets:\n" +
           secrets;
  }
  static bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }
};

TEST_F(SecretsConfig, EveryRuleLandsInItsField) {
  Config c = parse(with(R"(  NPM_TOKEN:
    inject: [{host: NPM.example.com, header: Authorization, value: "Bearer {secret}"}]
  GITLAB_TOKEN:
    inject:
      - host: code.gitlab.example
        header: PRIVATE-TOKEN
        value: "{secret}"
        methods: [get, HEAD]
        paths: [/api/v4/]
  GIT_PASS:
    inject: [{host: npm.example.com, basic: {user: deploy}}]
)"));
  ASSERT_EQ(c.secrets.size(), 3u);
  const SecretConfig& npm = c.secrets.at("NPM_TOKEN");
  EXPECT_EQ(npm.name, "NPM_TOKEN");
  EXPECT_EQ(npm.line, 5);
  ASSERT_EQ(npm.inject.size(), 1u);
  EXPECT_EQ(npm.inject[0].host, "npm.example.com");  // lowercased
  EXPECT_EQ(npm.inject[0].header, "Authorization");
  EXPECT_EQ(npm.inject[0].value, "Bearer {secret}");
  EXPECT_TRUE(npm.inject[0].methods.empty());
  const InjectRule& gl = c.secrets.at("GITLAB_TOKEN").inject.at(0);
  EXPECT_EQ(gl.header, "PRIVATE-TOKEN");
  EXPECT_EQ(gl.value, "{secret}");
  EXPECT_EQ(gl.methods, (std::vector<std::string>{"GET", "HEAD"}));
  EXPECT_EQ(gl.paths, (std::vector<std::string>{"/api/v4/"}));
  const InjectRule& basic = c.secrets.at("GIT_PASS").inject.at(0);
  EXPECT_EQ(basic.basic_user, "deploy");
  EXPECT_EQ(basic.header, "Authorization");
}

TEST_F(SecretsConfig, AHostOutsideTheAllowlistIsRefusedWithTheLineToAdd) {
  std::string e = error_of(with("  NPM_TOKEN:\n    inject: [{host: evil.example.org}]\n"));
  EXPECT_EQ(e.rfind("config.yml:6:", 0), 0u) << e;
  EXPECT_TRUE(has(e,
                  ": secrets.NPM_TOKEN.inject[0].host: 'evil.example.org' is not in "
                  "sandbox.allow, so no request reaches it; add it: sandbox: {allow: "
                  "[evil.example.org]}"))
      << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << "one error: " << e;
  // A wildcard allow entry covers the host.
  parse(with("  T:\n    inject: [{host: code.gitlab.example}]\n"));
}

TEST_F(SecretsConfig, WithoutTheAllowlistNetworkNoProxyRunsSoTheRuleIsRefused) {
  std::string e = error_of("secrets:\n  T:\n    inject: [{host: npm.example.com}]\n");
  EXPECT_TRUE(has(e, "config.yml:3:")) << e;
  EXPECT_TRUE(has(e, "sandbox: {network: allowlist, allow: [npm.example.com]}")) << e;
}

TEST_F(SecretsConfig, PlainHttpIsRefusedBecauseTheValueWouldTravelInClearText) {
  std::string e = error_of(with("  T:\n    inject: [{host: \"http://npm.example.com/x\"}]\n"));
  EXPECT_TRUE(has(e,
                  "secrets.T.inject[0].host: 'http://npm.example.com/x' is "
                  "plain http"))
      << e;
  EXPECT_TRUE(has(e, "write the host name alone, e.g. host: npm.example.com")) << e;
  EXPECT_FALSE(has(e, "not in sandbox.allow")) << "one error per mistake: " << e;
}

TEST_F(SecretsConfig, WildcardsAddressesAndSchemesAreRefused) {
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: \"*.gitlab.example\"}]\n")),
                  "is a wildcard; a secret is added for one exact host"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: 10.1.2.3}]\n")), "is an address"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: \"https://npm.example.com\"}]\n")),
                  "write the host name alone, e.g. host: npm.example.com"));
}

TEST_F(SecretsConfig, HeadersValuesMethodsAndPathsAreChecked) {
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, header: Host}]\n")),
                  "frames or routes the request"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, header: \"A B\"}]\n")),
                  "is not a header name"));
  EXPECT_TRUE(
      has(error_of(with("  T:\n    inject: [{host: npm.example.com, value: \"Bearer x\"}]\n")),
          "write {secret} exactly once"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, value: "
                                "\"{secret}{secret}\"}]\n")),
                  "write {secret} exactly once"));
  EXPECT_TRUE(
      has(error_of(with("  T:\n    inject: [{host: npm.example.com, methods: [CONNECT]}]\n")),
          "'CONNECT' is not an HTTP method"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, paths: [api/]}]\n")),
                  "'api/' is not a path prefix"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, basic: {user: u}, "
                                "value: \"x {secret}\"}]\n")),
                  "basic: sets the Authorization header itself"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{host: npm.example.com, basic: {}}]\n")),
                  "missing 'user'"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: [{header: X-Token}]\n")), "missing 'host'"));
  EXPECT_TRUE(has(error_of(with("  T: {}\n")), "missing 'inject'"));
  EXPECT_TRUE(has(error_of(with("  T:\n    inject: []\n")), "adds the secret nowhere"));
  EXPECT_TRUE(
      has(error_of(with("  HOME:\n    inject: [{host: npm.example.com}]\n")), "secrets.HOME"));
}

TEST_F(SecretsConfig, ASecretAlsoHandedToAPhaseByNameIsRefused) {
  std::string e = error_of(with("  NPM_TOKEN:\n    inject: [{host: npm.example.com}]\n") +
                           "profiles:\n  web: {secrets: [NPM_TOKEN]}\n"
                           "agents:\n  a:\n    command: x\n"
                           "    mcp: {gh: {command: [m], secrets: [NPM_TOKEN]}}\n");
  EXPECT_TRUE(has(e,
                  "config.yml:5:3: secrets.NPM_TOKEN: 'NPM_TOKEN' is injected by the proxy and "
                  "also listed in profiles.web.secrets"))
      << e;
  EXPECT_TRUE(has(e, "also listed in agents.a.mcp.gh.secrets")) << e;
}

// An MCP server run outside the unit (run: outside) gets its secrets in a sandbox of its own on
// the owner's side: it may list an injected secret. One the CLI starts inside may not, written
// out as run: inside or left to the default.
TEST_F(SecretsConfig, AnOutsideMcpServerMayListAnInjectedSecretAnInsideOneMayNot) {
  std::string mcp = with("  NPM_TOKEN:\n    inject: [{host: npm.example.com}]\n") +
                    "agents:\n  a:\n    provider: claude\n    mcp:\n"
                    "      reg: {command: [/opt/m], run: outside, net: [npm.example.com], "
                    "secrets: [NPM_TOKEN]}\n";
  Config c = parse(mcp);
  EXPECT_EQ(c.agents.at("a").mcp.at("reg").secrets, (std::vector<std::string>{"NPM_TOKEN"}));
  EXPECT_EQ(c.secrets.count("NPM_TOKEN"), 1u);
  for (const char* run : {"run: inside, ", ""}) {
    std::string e = error_of(with("  NPM_TOKEN:\n    inject: [{host: npm.example.com}]\n") +
                             "agents:\n  a:\n    provider: claude\n    mcp:\n"
                             "      reg: {command: [m], " +
                             run + "secrets: [NPM_TOKEN]}\n");
    EXPECT_TRUE(has(e, "also listed in agents.a.mcp.reg.secrets")) << run << e;
    EXPECT_TRUE(has(e, "run: outside")) << e;
  }
}

}  // namespace
}  // namespace aw
