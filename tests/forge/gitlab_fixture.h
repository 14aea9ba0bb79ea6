// The fake GitLab (tests/fakes/fake_gitlab.py) with one project (grp/sub/app, imported from a real
// git repository), awaywork's login (aw-bot, Developer), a client and a session on it, and what the
// state database saved of its requests: the fixture of the gitlab_*_test files (issue 29). Its
// base, FakeGitlabTest (the fake, a project and the login; a client, a session), serves the GitLab
// fixtures that differ in their project or members too (tests/watch's, the keyset test's).
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "../fakes/fake_gitlab.h"
#include "../git/git_fixture.h"
#include "base/fs.h"
#include "forge/gitlab/client.h"
#include "forge/gitlab/session.h"
#include "record/store.h"

// In namespace aw::test, not an anonymous one: several files run tests of the suite GitlabTest,
// and GoogleTest requires one fixture type per suite.
namespace aw::test {

inline const std::string kProject = "grp/sub/app";

// Time as the client waits it: a sleep is recorded, never waited.
class RecordingClock : public Clock {
 public:
  int64_t now_seconds() override { return ::time(nullptr); }
  void sleep(std::chrono::milliseconds d) override { slept += d; }
  std::chrono::milliseconds slept{0};
};

// Whether a line of the fake's log is an API request awaywork sent (the fixtures' own control
// requests and git's are not).
inline bool awaywork_api_request(const nlohmann::json& e) {
  return e.value("kind", "") == "api" && e.value("user_agent", nlohmann::json()).is_string() &&
         e["user_agent"].get<std::string>().rfind("awaywork/", 0) == 0;
}

// The fake GitLab; each fixture's SetUp opens its project with open_project and adds the members
// it needs.
class FakeGitlabTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::unique_ptr<FakeGitlab> fake;
  RecordingClock clock;
  std::string token, src;

  // The fake, started; `project` imported from a new repository (main: a.txt, one commit); the
  // login aw-bot (its token in `token`), Developer on the group grp, so on projects nested in it.
  // A void function for its ASSERTs: call it as ASSERT_NO_FATAL_FAILURE(open_project(...)).
  void open_project(const std::string& project) {
    fake = std::make_unique<FakeGitlab>(tmp.path);
    ASSERT_FALSE(fake->api_url().empty()) << fake->error();
    src = tmp.path + "/src";
    sh("git init -q -b main " + sq(src));
    sh("printf 'alpha\\n' > a.txt && git add a.txt && git -c user.name=t "
       "-c user.email=t@example.com commit -qm init",
       src);
    token = fake->add_user("aw-bot");
    ASSERT_TRUE(fake->add_project(project, src).is_object()) << fake->error();
    fake->member("grp", "aw-bot", 30);
  }

  // A client of the fake's API as `tok`, its waits on `waits`.
  GitLab gitlab_client(const std::string& tok, Clock& waits, GitLabOptions opt = {}) {
    opt.api_url = fake->api_url();
    opt.credential = "GITLAB_TOKEN";
    auto t = beast_transport(
        TransportOptions{fake->api_url(), "", std::chrono::seconds(5), std::chrono::seconds(30)});
    EXPECT_TRUE(t) << t.error().message;
    return GitLab(opt, tok, std::move(*t), waits);
  }

  // A session on `project` as open_gitlab makes it (one client, one transport), as aw-bot: the
  // token's user read, and the project (GET /projects/:id, one request more) when `read_project`.
  // nullptr, the test failed, when the fake did not answer.
  std::unique_ptr<GitLabSession> gitlab_session(const std::string& project, Clock& waits,
                                                bool read_project) {
    GitLabOptions opt;
    opt.api_url = fake->api_url();
    opt.credential = "GITLAB_TOKEN";
    auto t = beast_transport(
        TransportOptions{fake->api_url(), "", std::chrono::seconds(10), std::chrono::seconds(60)});
    EXPECT_TRUE(t) << t.error().message;
    if (!t) return nullptr;
    ForgeConfig forge;
    forge.name = "lab";
    forge.kind = "gitlab";
    forge.api_url = fake->api_url();
    forge.credential = "GITLAB_TOKEN";
    auto s = std::unique_ptr<GitLabSession>(new GitLabSession{
        forge, project, token, GitLab(opt, token, std::move(*t), waits), {}, {}, {}});
    auto me = s->gl.get("/user");
    EXPECT_TRUE(me) << me.error().message;
    if (!me) return nullptr;
    s->self = *gitlab_user_from_json(*me, "GET /user");
    if (!read_project) return s;
    auto p = s->gl.get(s->project_target());
    EXPECT_TRUE(p) << p.error().message;
    if (!p) return nullptr;
    s->repo = *gitlab_project_from_json(*p, "GET project");
    return s;
  }
};

class GitlabTest : public FakeGitlabTest {
 protected:
  std::string bare;

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(open_project(kProject));
    fake->member(kProject, "maint", 40);
    fake->member(kProject, "dev", 30);
    fake->member(kProject, "guest", 10);
    bare = tmp.path + "/fake-gitlab/repos/" + kProject + ".git";
  }

  GitLab client(const std::string& tok, GitLabOptions opt = {}) {
    return gitlab_client(tok, clock, std::move(opt));
  }

  std::unique_ptr<GitLabSession> session() { return gitlab_session(kProject, clock, true); }

  int64_t issue(const std::string& user, const std::string& title, const std::string& body) {
    return fake
        ->control("POST", "projects/" + kProject + "/issues",
                  {{"username", user}, {"title", title}, {"description", body}})
        .value("iid", int64_t{0});
  }
  void note(int64_t iid, const std::string& user, const std::string& body, bool system = false) {
    fake->control("POST", "projects/" + kProject + "/issues/" + std::to_string(iid) + "/notes",
                  {{"username", user}, {"body", body}, {"system", system}});
  }
  nlohmann::json notes(int64_t iid) { return fake->notes(kProject, iid, token); }

  // The requests the state database's forge usage holds for the fake's API (its rate limit seen
  // too: the fake sends RateLimit-*); -1 when it holds no row for it.
  int64_t gitlab_requests_saved(const std::string& state_dir) {
    auto store = Store::open(state_dir);
    EXPECT_TRUE(store) << store.error().message;
    if (!store) return -1;
    auto usage = store->forge_usage();
    EXPECT_TRUE(usage) << usage.error().message;
    if (!usage) return -1;
    for (const ForgeUsage& u : *usage)
      if (u.api == fake->api_url()) {
        EXPECT_GT(u.rate_limit, 0);
        return u.requests;
      }
    ADD_FAILURE() << "no forge usage for " << fake->api_url();
    return -1;
  }
  // The API requests awaywork sent the fake (its log; the fixture's own are left out).
  int64_t awaywork_api_requests() {
    int64_t n = 0;
    for (const auto& e : fake->log())
      if (awaywork_api_request(e)) ++n;
    return n;
  }
};

}  // namespace aw::test
