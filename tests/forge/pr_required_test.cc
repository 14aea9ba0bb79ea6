// A branch protection's required checks (issue 26, follow_ci): the base branch's
// protection.required_status_checks as GET .../branches/B answers it, and only the failing checks
// it requires (a check run by its name and app, a status by its context); a branch without
// protection, or requiring none, keeps every failing check.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "forge/pr_checks.h"
#include "pr_checks_fixture.h"

namespace aw {
namespace {

using nlohmann::json;
using test::failing;
using test::names;

// The branch as GitHub answers it, with its protection's required status checks.
json branch(bool protected_, const std::string& level, json contexts, json checks) {
  return json{{"name", "main"},
              {"protected", protected_},
              {"protection",
               {{"enabled", protected_},
                {"required_status_checks",
                 {{"enforcement_level", level}, {"contexts", contexts}, {"checks", checks}}}}}};
}

TEST(RequiredChecks, AnUnprotectedBranchRequiresNothingAndEveryFailingCheckCounts) {
  auto none = required_checks_from_json(branch(false, "off", json::array(), json::array()));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
  // Protected, but its rule requires no check, or enforces none.
  auto empty = required_checks_from_json(branch(true, "non_admins", json::array(), json::array()));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  auto off = required_checks_from_json(branch(true, "off", json::array({"build"}), json::array()));
  ASSERT_TRUE(off);
  EXPECT_TRUE(off->empty());
  // A branch without the protection field at all (an older GitHub Enterprise Server).
  auto bare = required_checks_from_json(json{{"name", "main"}, {"protected", true}});
  ASSERT_TRUE(bare);
  EXPECT_TRUE(bare->empty());
  EXPECT_FALSE(required_checks_from_json(json::array()));

  std::vector<FailingCheck> all = {failing("check run", "build", 15368),
                                   failing("status", "ci/ext")};
  EXPECT_EQ(names(only_required(all, {})), (std::vector<std::string>{"build", "ci/ext"}));
}

TEST(RequiredChecks, OnlyAFailingRequiredCheckCountsByNameAndApp) {
  auto req = required_checks_from_json(
      branch(true, "non_admins", json::array({"build", "lint", "ci/ext"}),
             json::array({{{"context", "build"}, {"app_id", 15368}},
                          {{"context", "lint"}, {"app_id", nullptr}},
                          {{"context", "ci/ext"}, {"app_id", nullptr}}})));
  ASSERT_TRUE(req) << req.error().message;
  ASSERT_EQ(req->size(), 3u);
  EXPECT_EQ((*req)[0].context, "build");
  EXPECT_EQ((*req)[0].app_id, 15368);
  EXPECT_EQ((*req)[1].app_id, -1);  // null: any source

  std::vector<FailingCheck> all = {
      failing("check run", "build", 15368),  // required, from its app
      failing("check run", "docs", 15368),   // not required
      failing("check run", "lint", 777),     // required from any app
      failing("status", "ci/ext"),           // a required status context
      failing("status", "ci/optional"),      // not required
  };
  EXPECT_EQ(names(only_required(all, *req)), (std::vector<std::string>{"build", "lint", "ci/ext"}));
  // "build" from another app than the one the rule names satisfies nothing, blocks nothing.
  EXPECT_TRUE(only_required({failing("check run", "build", 42)}, *req).empty());
  // Nor does a commit status named "build" (security review L2): the rule names an app, and a
  // status is anyone's with statuses:write. A status of a name required from any source still
  // counts.
  EXPECT_TRUE(only_required({failing("status", "build")}, *req).empty());
  EXPECT_EQ(names(only_required({failing("status", "build"), failing("status", "lint")}, *req)),
            (std::vector<std::string>{"lint"}));
}

TEST(RequiredChecks, TheLegacyContextsListAloneRequiresByName) {
  auto req = required_checks_from_json(branch(true, "everyone", json::array({"build"}), nullptr));
  ASSERT_TRUE(req) << req.error().message;
  ASSERT_EQ(req->size(), 1u);
  EXPECT_EQ((*req)[0].app_id, -1);
  EXPECT_EQ(names(only_required({failing("check run", "build", 9), failing("status", "x")}, *req)),
            (std::vector<std::string>{"build"}));
}

TEST(RequiredChecks, ACheckRunsAppIdIsRead) {
  auto f = failing_checks_from_json(json::parse(R"({"check_runs": [{"id": 5, "name": "build",
      "status": "completed", "conclusion": "failure",
      "app": {"id": 15368, "slug": "github-actions"}}]})"),
                                    nullptr);
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ((*f)[0].app_id, 15368);
}

}  // namespace
}  // namespace aw
