// Issue 29's publish figure (bench/README.md, target <= 50 ms beyond the push): a GitLab publish
// reads the branch's tips through the API (GitLab's repository branches) instead of two git
// ls-remote round trips (before the push and verifying it), as GitHub's does; and the API
// requests of one session, its opening and a whole publish, go over ONE kept-alive connection
// (forge/http_beast.cc), not one connection each, a second publish of the session (a replay) too.
// The fake GitLab names in its log the connection each request came on.
#include <gtest/gtest.h>

#include <set>

#include "../fakes/fake_gitlab.h"
#include "../git/git_fixture.h"
#include "base/fs.h"
#include "check/requests.h"
#include "forge/gitlab/publish.h"

namespace aw::test {
namespace {

const std::string kAskpass = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
const std::string kProject = "grp/app";

// The connections awaywork's API requests came on, in the fake's log (the fixture's own control
// requests and git's are left out), and how many requests there were.
std::pair<std::set<int64_t>, int> api_connections(FakeGitlab& fake) {
  std::set<int64_t> out;
  int n = 0;
  for (const auto& e : fake.log()) {
    if (e.value("kind", "") != "api" || !e.value("user_agent", nlohmann::json()).is_string() ||
        e["user_agent"].get<std::string>().rfind("awaywork/", 0) != 0)
      continue;
    ++n;
    out.insert(e.value("connection", int64_t{-1}));
  }
  return {out, n};
}

TEST(GitlabKeepAlive, APublishReadsTipsByTheApiAndItsRequestsGoOverOneConnection) {
  TempDir tmp;
  FakeGitlab fake(tmp.path);
  ASSERT_FALSE(fake.api_url().empty()) << fake.error();
  std::string src = tmp.path + "/src";
  sh("git init -q -b main " + sq(src));
  sh("printf 'alpha\\n' > a.txt && git add a.txt && git -c user.name=t "
     "-c user.email=t@example.com commit -qm init",
     src);
  std::string token = fake.add_user("aw-bot");
  ASSERT_TRUE(fake.add_project(kProject, src).is_object()) << fake.error();
  fake.member("grp", "aw-bot", 30);
  fake.member(kProject, "maint", 40);
  int64_t iid = fake.control("POST", "projects/" + kProject + "/issues",
                             {{"username", "maint"}, {"title", "Add b"}, {"description", "b"}})
                    .value("iid", int64_t{0});
  ASSERT_GT(iid, 0) << fake.error();

  // The session as open_gitlab makes it: one client, one transport.
  GitLabOptions opt;
  opt.api_url = fake.api_url();
  opt.credential = "GITLAB_TOKEN";
  auto t = beast_transport(
      TransportOptions{fake.api_url(), "", std::chrono::seconds(10), std::chrono::seconds(60)});
  ASSERT_TRUE(t) << t.error().message;
  ForgeConfig forge;
  forge.name = "lab";
  forge.kind = "gitlab";
  forge.api_url = fake.api_url();
  forge.credential = "GITLAB_TOKEN";
  auto s = std::unique_ptr<GitLabSession>(new GitLabSession{
      forge, kProject, token, GitLab(opt, token, std::move(*t), system_clock()), {}, {}, {}});
  auto me = s->gl.get("/user");
  ASSERT_TRUE(me) << me.error().message;
  s->self = *gitlab_user_from_json(*me, "GET /user");
  auto p = s->gl.get(s->project_target());
  ASSERT_TRUE(p) << p.error().message;
  s->repo = *gitlab_project_from_json(*p, "GET project");

  ApplyTarget remote;
  remote.url = s->repo.clone_url;
  remote.credential = "GITLAB_TOKEN";
  remote.username = "oauth2";
  remote.secret_value = token;
  std::string mirror_dir = tmp.path + "/state/mirrors/app.git";
  auto m = update_mirror(remote, mirror_dir, kAskpass);
  ASSERT_TRUE(m) << m.error().message;
  auto base = resolve_commit(m->repo, "main");
  ASSERT_TRUE(base) << base.error().message;

  ForgePublishInput in;
  in.unit = {"u1", "test", "none", "off", "accepted", {{"check 1", 0}}};
  in.issue = iid;
  in.base_ref = "main";
  in.base_commit = *base;
  in.patch =
      "diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n"
      "@@ -0,0 +1 @@\n+bravo\n";
  in.paths = {"b.txt"};
  in.commit_message = "add b";
  in.requests = {Request{"create_pull_request", 1, "Add b", "Body", "", "", "", "", {}},
                 Request{"add_comment", 2, "", "Done.", "", "", "", "", {}},
                 Request{"add_labels", 3, "", "", "", "", "", "", {"ready"}}};
  in.allowed_labels = {"ready"};
  in.scratch_dir = tmp.path + "/scratch";
  in.askpass = kAskpass;
  in.mirror_dir = mirror_dir;

  size_t logged = fake.log().size();
  auto done = publish_to_gitlab(*s, in);
  ASSERT_TRUE(done) << done.error().message;
  // The branch's tips, before the push and verifying it, came from the API (the repository's
  // branches), not from git's ls-remote, a round trip of tens of milliseconds each: the only
  // git requests are the push's (receive-pack), none of an ls-remote's (upload-pack).
  int pushes = 0;
  auto log = fake.log();
  for (size_t i = logged; i < log.size(); ++i) {
    const auto& e = log[i];
    if (e.value("kind", "") != "git") continue;
    std::string what = e.value("path", "") + "?" + e.value("query", "");
    EXPECT_EQ(what.find("git-upload-pack"), std::string::npos) << "an ls-remote: " << e.dump();
    if (what.find("git-receive-pack") != std::string::npos) ++pushes;
  }
  EXPECT_GE(pushes, 1);
  int branch_reads = 0;
  for (size_t i = logged; i < log.size(); ++i)
    if (log[i].value("kind", "") == "api" &&
        log[i].value("path", "").find("/repository/branches/") != std::string::npos)
      ++branch_reads;
  EXPECT_GE(branch_reads, 2) << "the tips before the push and after it";
  EXPECT_EQ(done->posted, (std::vector<std::string>{"pull", "mr-note", "comment-1", "labels"}));
  auto [connections, requests] = api_connections(fake);
  // /user, the project, then the publish's (its branch reads, the merge request looked up and
  // posted, the notes, the issue, two notes, the labels): one connection for all of them.
  EXPECT_GE(requests, 11);
  EXPECT_EQ(connections.size(), 1u) << requests << " requests";
  EXPECT_EQ(connections.count(-1), 0u) << "the fake's log names no connection";

  // A replay (apply ID again) of the same session keeps to it too, git's push in between.
  auto again = publish_to_gitlab(*s, in);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->posted.empty());
  auto [after, more] = api_connections(fake);
  EXPECT_GT(more, requests);
  EXPECT_EQ(after, connections);
  s->background.clear();  // the scratch's removal, before the folder goes
}

}  // namespace
}  // namespace aw::test
