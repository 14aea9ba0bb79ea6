// What awaywork reads from GitHub: Link pagination, next pages only under the API's base, and
// JSON answers parsed tolerantly with an error naming the field and the endpoint.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "forge/client.h"
#include "forge/gitlab/model.h"
#include "forge/model.h"

namespace aw {
namespace {

using nlohmann::json;

TEST(LinkHeader, FindsNextAmongGithubsRelations) {
  std::string h =
      "<https://api.github.com/repositories/1/issues?page=1>; rel=\"prev\", "
      "<https://api.github.com/repositories/1/issues?page=3>; rel=\"next\", "
      "<https://api.github.com/repositories/1/issues?page=9>; rel=\"last\"";
  EXPECT_EQ(link_next(h), "https://api.github.com/repositories/1/issues?page=3");
  EXPECT_EQ(link_next("<https://x/a?page=2>; rel=\"first\""), std::nullopt);
  EXPECT_EQ(link_next(""), std::nullopt);
  EXPECT_EQ(link_next("<https://x/a?page=2>; rel=next"), "https://x/a?page=2");
  EXPECT_EQ(link_next("<https://x/b>; title=\"a, b\"; rel=\"next last\""), "https://x/b");
  EXPECT_EQ(link_next("<unterminated; rel=\"next\""), std::nullopt);
}

TEST(LinkHeader, NextPagesOnlyUnderTheApiBase) {
  EXPECT_EQ(*target_under("https://api.github.com/repositories/1/issues?page=2",
                          "https://api.github.com"),
            "/repositories/1/issues?page=2");
  EXPECT_EQ(
      *target_under("https://ghe.corp/api/v3/repos/o/r/issues?page=2", "https://ghe.corp/api/v3"),
      "/repos/o/r/issues?page=2");
  EXPECT_FALSE(target_under("https://evil.example/repos?page=2", "https://api.github.com"));
  EXPECT_FALSE(target_under("https://api.github.com.evil/x", "https://api.github.com"));
  EXPECT_FALSE(target_under("https://ghe.corp/other/x", "https://ghe.corp/api/v3"));
}

// One escape for every name put in an API path (publish's refs and compare link, the required
// checks' branch): slashes stay, `?`, `#`, blanks and non-ASCII bytes are percent-encoded.
TEST(LinkHeader, ANameInAnApiPathKeepsItsSlashesAndEscapesTheRest) {
  EXPECT_EQ(path_escape("release/1.x"), "release/1.x");
  EXPECT_EQ(path_escape("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(path_escape("fix?x=1#top"), "fix%3Fx%3D1%23top");
  EXPECT_EQ(path_escape("a b%"), "a%20b%25");
  EXPECT_EQ(path_escape("caf\xC3\xA9"), "caf%C3%A9");
  EXPECT_EQ(path_escape(""), "");
}

TEST(ForgeJson, AnIssueWithLabelsAndAMissingBody) {
  json j = json::parse(R"({"number": 5, "title": "t", "body": null, "state": "open",
    "user": {"login": "alice", "type": "User"}, "labels": [{"name": "awaywork"}, "plain"],
    "pull_request": null})");
  auto i = issue_from_json(j, "GET /repos/o/r/issues/5");
  ASSERT_TRUE(i) << i.error().message;
  EXPECT_EQ(i->number, 5);
  EXPECT_EQ(i->body, "");
  EXPECT_EQ(i->author.login, "alice");
  EXPECT_EQ(i->labels, (std::vector<std::string>{"awaywork", "plain"}));
  EXPECT_FALSE(i->is_pull_request);
}

TEST(ForgeJson, MistypedOrMissingFieldsAreNamed) {
  auto e = issue_from_json(json::parse(R"({"number": "5"})"), "GET /repos/o/r/issues/5");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "GET /repos/o/r/issues/5: the answer has no whole number 'number'");
  auto t = issue_from_json(json::parse(R"({"number": 5, "title": 3})"), "X");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message, "X: 'title' is number, not a string");
  auto u = comments_from_json(json::parse(R"([{"id": 1, "user": {"login": 2}}])"), "C");
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().message, "C [0] .user: 'login' is number, not a string");
  EXPECT_FALSE(repo_from_json(json::parse("[]"), "R"));
  EXPECT_FALSE(repo_from_json(json::parse(R"({"full_name": "o/r"})"), "R"));
}

// The repository's id: what the read-only forge for the agent adds the numeric API paths with
// (/repositories/ID/..., /projects/ID/...); 0 when the answer has none or a strange one.
TEST(ForgeJson, TheRepositorysIdIsReadFromBothForgesAndOptional) {
  json repo = json::parse(R"({"id": 1296269, "full_name": "o/r",
    "clone_url": "https://github.com/o/r.git"})");
  auto gh = repo_from_json(repo, "R");
  ASSERT_TRUE(gh) << gh.error().message;
  EXPECT_EQ(gh->id, 1296269);
  json project = json::parse(R"({"id": 42, "path_with_namespace": "g/p",
    "http_url_to_repo": "https://gitlab.example.com/g/p.git", "visibility": "private"})");
  auto gl = gitlab_project_from_json(project, "P");
  ASSERT_TRUE(gl) << gl.error().message;
  EXPECT_EQ(gl->id, 42);
  for (const char* odd : {R"("id": "12")", R"("id": -3)", R"("id": 1.5)", R"("x": 1)"}) {
    auto r = repo_from_json(
        json::parse(fmt::format(R"({{{}, "full_name": "o/r", "clone_url": "u"}})", odd)), "R");
    ASSERT_TRUE(r) << odd << r.error().message;
    EXPECT_EQ(r->id, 0) << odd;
  }
}

TEST(ForgeJson, ADeletedAuthorIsGhostAndBotsAreKnownByType) {
  auto c = comment_from_json(json::parse(R"({"id": 1, "user": null, "body": "x"})"), "C");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->author.login, "ghost");
  auto b = user_from_json(json::parse(R"({"login": "renovate[bot]", "type": "Bot"})"), "U");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->bot);
}

TEST(ForgeJson, RoleNameWinsOverPermission) {
  EXPECT_EQ(
      *role_from_json(json::parse(R"({"permission": "write", "role_name": "maintain"})"), "P"),
      "maintain");
  EXPECT_EQ(*role_from_json(json::parse(R"({"permission": "read"})"), "P"), "read");
  EXPECT_FALSE(role_from_json(json::parse(R"({})"), "P"));
}

}  // namespace
}  // namespace aw
