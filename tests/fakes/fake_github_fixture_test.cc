// tests/fakes/fake_github.h starts the fake GitHub and steers it from a C++ test: over plain
// HTTP, and over TLS through its plain control listener; tests/fakes/fake_gitlab.h the fake
// GitLab (issue 29).
#include "fake_github.h"
#include "fake_gitlab.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace aw::test {
namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/fake-github-fixture-XXXXXX";
  return ::mkdtemp(tmpl);
}

int sh(const std::string& cmd) {
  return std::system((cmd + " >/dev/null 2>&1").c_str());
}

TEST(FakeGithubFixture, StartsTheFakeAndSetsUpAUserARepositoryAndAnIssue) {
  std::string dir = temp_dir();
  std::string src = dir + "/src";
  ASSERT_EQ(sh("git init -q -b main " + src + " && cd " + src +
               " && echo hi > f && git add f && git -c user.name=t -c user.email=t@example.com "
               "commit -qm first"),
            0);
  FakeGithub gh;
  ASSERT_TRUE(gh.start(dir + "/gh")) << gh.error();
  std::string token = gh.add_user("alice");
  EXPECT_EQ(token.rfind("ghp_", 0), 0u);
  EXPECT_EQ(token.size(), 40u);
  auto repo = gh.add_repo("alice", "r", src);
  ASSERT_TRUE(repo.is_object()) << gh.error();
  EXPECT_EQ(repo["clone_url"], gh.git_url() + "/alice/r.git");
  ASSERT_TRUE(
      gh.control("POST", "repos/alice/r/issues", {{"user", "bob"}, {"title", "x"}}).is_object())
      << gh.error();
  auto reply = gh.api("GET", "/repos/alice/r/issues", nullptr, token);
  EXPECT_EQ(reply.status, 200);
  ASSERT_EQ(reply.body.size(), 1u);
  EXPECT_EQ(reply.body[0]["user"]["login"], "bob");
  EXPECT_NE(reply.headers.find("X-RateLimit-Remaining: 4999"), std::string::npos);
  EXPECT_EQ(gh.api("GET", "/user", nullptr, "ghp_unknown").status, 401);
  auto log = gh.log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0]["login"], "alice");
  EXPECT_EQ(gh.stats()["requests"], 2);
  EXPECT_TRUE(gh.control("GET", "nothing").is_null());
  EXPECT_NE(gh.error().find("404"), std::string::npos);
  gh.stop();
  std::filesystem::remove_all(dir);
}

TEST(FakeGithubFixture, SteersATlsFakeThroughItsPlainControlListener) {
  std::string dir = temp_dir();
  ASSERT_EQ(sh("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
               "-addext subjectAltName=IP:127.0.0.1 -keyout " +
               dir + "/key.pem -out " + dir + "/cert.pem"),
            0);
  FakeGithub gh;
  ASSERT_TRUE(gh.start(dir + "/gh", {"--tls", dir + "/cert.pem", dir + "/key.pem"})) << gh.error();
  EXPECT_EQ(gh.api_url(), "https://127.0.0.1:" + std::to_string(gh.port()));
  auto repo = gh.add_repo("alice", "r");
  ASSERT_TRUE(repo.is_object()) << gh.error();
  EXPECT_EQ(repo["clone_url"], gh.api_url() + "/alice/r.git");
  gh.stop();
  std::filesystem::remove_all(dir);
}

TEST(FakeGitlabFixture, StartsTheFakeAndSetsUpAUserANestedProjectAndAnIssue) {
  std::string dir = temp_dir();
  FakeGitlab gl(dir);
  ASSERT_FALSE(gl.api_url().empty()) << gl.error();
  EXPECT_EQ(gl.api_url().substr(gl.api_url().size() - 7), "/api/v4");
  std::string token = gl.add_user("aw-bot");
  EXPECT_EQ(token.rfind("glpat-", 0), 0u);
  auto project = gl.add_project("grp/sub/app");
  ASSERT_TRUE(project.is_object()) << gl.error();
  EXPECT_EQ(project["http_url_to_repo"], gl.git_url() + "/grp/sub/app.git");
  ASSERT_TRUE(gl.member("grp", "aw-bot", 30).is_object()) << gl.error();
  ASSERT_TRUE(
      gl.control("POST", "projects/grp/sub/app/issues", {{"username", "bob"}, {"title", "x"}})
          .is_object())
      << gl.error();
  auto r = gl.api("GET", "/projects/grp%2Fsub%2Fapp/issues/1", token);
  EXPECT_EQ(r.status, 200) << r.headers;
  EXPECT_EQ(r.body["author"]["username"], "bob");
  EXPECT_EQ(gl.api("GET", "/user", "glpat-wrongWRONGwrong00000").status, 401);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aw::test
