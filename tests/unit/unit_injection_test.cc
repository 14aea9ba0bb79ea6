// A unit's injected secrets (issue 27): the config's rules joined with the values read, into the
// egress proxy's options, the phase's placeholders and the record's redaction list.
#include "unit/unit_injection.h"

#include <gtest/gtest.h>

#include <algorithm>

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

}  // namespace
}  // namespace aw
