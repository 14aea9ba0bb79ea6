// Issue 29's keyset pagination (the client, the issue's item 2): GitLab::get_all_keyset asks a list
// with pagination=keyset (order_by=id&sort=asc unless the target orders it) and follows the Link
// header's rel="next" cursor; a GitLab that has no keyset pagination for the list answers 405, and
// the client reads the same list by offset pages, then asks it by offset from the start. Against
// the fake GitLab (tests/fakes/fake_gitlab.py), whose project issue list has both.
#include <gtest/gtest.h>

#include "forge/gitlab/client.h"

#include "gitlab_fixture.h"

namespace aw::test {
namespace {

const std::string kKeysetProject = "grp/app";
const std::string kIssues =
    "/projects/grp%2Fapp/issues?state=opened&order_by=updated_at&sort=asc&per_page=2";

class GitlabKeysetTest : public FakeGitlabTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(open_project(kKeysetProject));
    for (int i = 1; i <= 5; ++i)
      fake->control("POST", "projects/" + kKeysetProject + "/issues",
                    {{"username", "aw-bot"}, {"title", "issue " + std::to_string(i)}});
  }

  GitLab client() { return gitlab_client(token, system_clock()); }

  // The queries of the issue list's requests in the fake's log, with their statuses.
  std::vector<std::pair<std::string, int>> issue_lists() {
    std::vector<std::pair<std::string, int>> out;
    for (const auto& e : fake->log())
      if (e.value("kind", "") == "api" && e.value("path", "") == "/projects/grp%2Fapp/issues")
        out.emplace_back(e.value("query", ""), e.value("status", 0));
    return out;
  }

  static std::vector<int64_t> iids(const nlohmann::json& list) {
    std::vector<int64_t> out;
    for (const auto& i : list) out.push_back(i.value("iid", int64_t{0}));
    return out;
  }
};

TEST(GitlabKeysetTarget, AddsKeysetAndOrdersByIdUnlessOrdered) {
  EXPECT_EQ(GitLab::keyset_target("/projects/1/jobs"),
            "/projects/1/jobs?pagination=keyset&order_by=id&sort=asc");
  EXPECT_EQ(GitLab::keyset_target("/projects/1/jobs?per_page=100"),
            "/projects/1/jobs?per_page=100&pagination=keyset&order_by=id&sort=asc");
  EXPECT_EQ(GitLab::keyset_target("/projects/1/issues?order_by=updated_at&sort=asc"),
            "/projects/1/issues?order_by=updated_at&sort=asc&pagination=keyset");
  // "sub_order_by" is not an order_by.
  EXPECT_EQ(GitLab::keyset_target("/x?sub_order_by=a"),
            "/x?sub_order_by=a&pagination=keyset&order_by=id&sort=asc");
}

TEST_F(GitlabKeysetTest, KeysetPagesFollowTheCursorInOrder) {
  GitLab gl = client();
  auto all = gl.get_all_keyset(kIssues);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(iids(*all), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  auto asked = issue_lists();
  ASSERT_EQ(asked.size(), 3u);  // 2 + 2 + 1, one request each, the first not asked twice
  for (size_t i = 0; i < asked.size(); ++i) {
    EXPECT_EQ(asked[i].second, 200);
    EXPECT_NE(asked[i].first.find("pagination=keyset"), std::string::npos) << asked[i].first;
    EXPECT_FALSE(asked[i].first.starts_with("page=") ||
                 asked[i].first.find("&page=") != std::string::npos)
        << "an offset page asked: " << asked[i].first;
    EXPECT_EQ(asked[i].first.find("cursor=") != std::string::npos, i > 0) << asked[i].first;
  }
}

TEST_F(GitlabKeysetTest, AGitlabWithoutKeysetAnswers405AndTheListComesByOffset) {
  fake->faults({{"keyset", false}});
  GitLab gl = client();
  auto all = gl.get_all_keyset(kIssues);
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(iids(*all), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  auto asked = issue_lists();
  ASSERT_EQ(asked.size(), 4u);  // the refused keyset request, then 3 offset pages
  EXPECT_EQ(asked[0].second, 405);
  EXPECT_NE(asked[0].first.find("pagination=keyset"), std::string::npos);
  for (size_t i = 1; i < asked.size(); ++i) {
    EXPECT_EQ(asked[i].second, 200);
    EXPECT_EQ(asked[i].first.find("pagination=keyset"), std::string::npos) << asked[i].first;
  }
  // Known now: the next read of the list goes by offset at once (no 405 each poll).
  auto again = gl.get_all_keyset(kIssues);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(iids(*again), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  auto later = issue_lists();
  ASSERT_GT(later.size(), asked.size());
  for (size_t i = asked.size(); i < later.size(); ++i)
    EXPECT_EQ(later[i].first.find("pagination=keyset"), std::string::npos) << later[i].first;
}

}  // namespace
}  // namespace aw::test
