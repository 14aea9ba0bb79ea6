// Repository rulesets' required checks (issue 26, follow_ci): the `required_status_checks` rules
// GET .../rules/branches/B answers, and the union with branch protection's: a failing check
// either requires counts, a ruleset alone limits the follow-ups to its checks, and with neither
// every failing check counts, as before.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "forge/pr_checks.h"
#include "pr_checks_fixture.h"

namespace aw {
namespace {

using nlohmann::json;
using test::failing;
using test::names;

// A rule as GitHub lists it for a branch (repository-rule-detailed).
json rule(const std::string& type, json parameters, int64_t ruleset_id = 42) {
  json r = {{"type", type},
            {"ruleset_source_type", "Repository"},
            {"ruleset_source", "octo/web"},
            {"ruleset_id", ruleset_id}};
  if (!parameters.is_null()) r["parameters"] = std::move(parameters);
  return r;
}

json status_checks(json checks, bool strict = false) {
  return rule("required_status_checks", {{"do_not_enforce_on_create", false},
                                         {"required_status_checks", std::move(checks)},
                                         {"strict_required_status_checks_policy", strict}});
}

// The branch as GET .../branches/B answers it, protected with these required checks.
json protected_branch(json checks) {
  return json{{"name", "main"},
              {"protected", true},
              {"protection",
               {{"enabled", true},
                {"required_status_checks",
                 {{"enforcement_level", "non_admins"},
                  {"contexts", json::array()},
                  {"checks", std::move(checks)}}}}}};
}

TEST(RulesetChecks, NoRulesetRequiresNothing) {
  auto none = ruleset_checks_from_json(json::array());
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
  // Rules of other types require no check.
  auto other = ruleset_checks_from_json(
      json::array({rule("deletion", nullptr), rule("non_fast_forward", nullptr),
                   rule("pull_request", {{"required_approving_review_count", 1}})}));
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_TRUE(other->empty());
  // Not GitHub's list: an Error naming what came instead.
  auto bad = ruleset_checks_from_json(json{{"message", "Not Found"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("expected a list"), std::string::npos) << bad.error().message;
}

TEST(RulesetChecks, EachRequiredContextWithItsIntegrationOrAnySource) {
  auto req = ruleset_checks_from_json(
      json::array({rule("deletion", nullptr),
                   status_checks(json::array({{{"context", "build"}, {"integration_id", 15368}},
                                              {{"context", "ci/ext"}}}),
                                 true),
                   // A second ruleset naming "build" from the same app again, and "lint".
                   status_checks(json::array({{{"context", "build"}, {"integration_id", 15368}},
                                              {{"context", "lint"}},
                                              {{"context", ""}}}))}));
  ASSERT_TRUE(req) << req.error().message;
  ASSERT_EQ(req->size(), 3u);
  EXPECT_EQ((*req)[0].context, "build");
  EXPECT_EQ((*req)[0].app_id, 15368);
  EXPECT_EQ((*req)[1].context, "ci/ext");
  EXPECT_EQ((*req)[1].app_id, -1);  // no integration_id: any source
  EXPECT_EQ((*req)[2].context, "lint");
}

// A repository that uses rulesets alone (its branch unprotected): only the ruleset's failing
// checks count, by name and app as protection's do.
TEST(RulesetChecks, ARulesetOnlyRequiredCheckLimitsTheFailingChecks) {
  auto by_protection = required_checks_from_json(json{{"name", "main"}, {"protected", false}});
  ASSERT_TRUE(by_protection) << by_protection.error().message;
  auto by_rulesets = ruleset_checks_from_json(json::array({status_checks(
      json::array({{{"context", "build"}, {"integration_id", 15368}}, {{"context", "ci/ext"}}}))}));
  ASSERT_TRUE(by_rulesets) << by_rulesets.error().message;
  auto required = required_union(*by_protection, *by_rulesets);
  std::vector<FailingCheck> all = {failing("check run", "build", 15368),
                                   failing("check run", "lint", 15368), failing("status", "ci/ext"),
                                   failing("status", "ci/other")};
  EXPECT_EQ(names(only_required(all, required)), (std::vector<std::string>{"build", "ci/ext"}));
  // "build" from another app satisfies nothing the ruleset requires.
  EXPECT_TRUE(only_required({failing("check run", "build", 7)}, required).empty());
  // Nor a commit status named "build": the rule names an app (security review L2).
  EXPECT_TRUE(only_required({failing("status", "build")}, required).empty());
}

TEST(RulesetChecks, ProtectionAndRulesetsRequireTheirUnion) {
  auto by_protection = required_checks_from_json(protected_branch(json::array(
      {{{"context", "build"}, {"app_id", 15368}}, {{"context", "docs"}, {"app_id", nullptr}}})));
  ASSERT_TRUE(by_protection) << by_protection.error().message;
  auto by_rulesets = ruleset_checks_from_json(json::array({status_checks(
      json::array({{{"context", "build"}, {"integration_id", 15368}}, {{"context", "lint"}}}))}));
  ASSERT_TRUE(by_rulesets) << by_rulesets.error().message;
  auto required = required_union(*by_protection, *by_rulesets);
  ASSERT_EQ(required.size(), 3u);  // "build" from 15368 once
  EXPECT_EQ(required[0].context, "build");
  EXPECT_EQ(required[1].context, "docs");
  EXPECT_EQ(required[2].context, "lint");

  std::vector<FailingCheck> all = {
      failing("check run", "build", 15368),  // both require it
      failing("check run", "docs", 15368),   // protection only
      failing("check run", "lint", 99),      // the ruleset only, from any app
      failing("check run", "flaky", 15368),  // neither
  };
  EXPECT_EQ(names(only_required(all, required)),
            (std::vector<std::string>{"build", "docs", "lint"}));
  // Either list alone would have left one out.
  EXPECT_EQ(names(only_required(all, *by_protection)), (std::vector<std::string>{"build", "docs"}));
  EXPECT_EQ(names(only_required(all, *by_rulesets)), (std::vector<std::string>{"build", "lint"}));
}

// The same context from one app and from any source are two requirements: both kept.
TEST(RulesetChecks, TheUnionKeepsEachContextAndAppOnce) {
  auto u = required_union({{"build", 15368}, {"build", -1}}, {{"build", 15368}, {"lint", -1}});
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[0].app_id, 15368);
  EXPECT_EQ(u[1].app_id, -1);
  EXPECT_EQ(u[2].context, "lint");
}

TEST(RulesetChecks, NeitherProtectionNorARulesetKeepsEveryFailingCheck) {
  auto by_protection = required_checks_from_json(json{{"name", "main"}, {"protected", false}});
  ASSERT_TRUE(by_protection);
  auto by_rulesets = ruleset_checks_from_json(json::array({rule("deletion", nullptr)}));
  ASSERT_TRUE(by_rulesets);
  auto required = required_union(*by_protection, *by_rulesets);
  EXPECT_TRUE(required.empty());
  std::vector<FailingCheck> all = {failing("check run", "build", 15368),
                                   failing("status", "ci/ext")};
  EXPECT_EQ(names(only_required(all, required)), (std::vector<std::string>{"build", "ci/ext"}));
}

}  // namespace
}  // namespace aw
