// A unit's injected secrets (issue 27): the config's rules joined with the values read, into the
// egress proxy's options, the phase's placeholders and the record's redaction list.
#include "unit/unit_injection.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>

#include "isolate/choose/choose.h"

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
  EXPECT_EQ(names, (std::vector<std::string>{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
                                             "REQUESTS_CA_BUNDLE", "PIP_CERT", "GIT_SSL_CAINFO",
                                             "CURL_CA_BUNDLE", "CARGO_HTTP_CAINFO"}));
  UnitInjection u;
  auto ca = UnitCa::make({"npm.example.test"});
  ASSERT_TRUE(ca) << ca.error().message;
  u.ca = *ca;
  EgressProxyOptions o;
  u.into(o);
  EXPECT_EQ(o.ca, u.ca) << "the proxy issues with the CA whose certificate the phases trust";
}

}  // namespace
}  // namespace aw
