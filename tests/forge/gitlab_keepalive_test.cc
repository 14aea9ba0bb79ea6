// Issue 29's publish figure (bench/README.md, target <= 50 ms beyond the push): a GitLab publish
// reads the branch's tips through the API (GitLab's repository branches) instead of two git
// ls-remote round trips (before the push and verifying it), as GitHub's does; and the API
// requests of one session, its opening and a whole publish, go over ONE kept-alive connection
// (forge/http_beast.cc), not one connection each, a second publish of the session (a replay) too.
// The fake GitLab names in its log the connection each request came on.
#include <gtest/gtest.h>

#include <set>

#include "check/requests.h"
#include "forge/gitlab/publish.h"

#include "gitlab_fixture.h"
#include "gitlab_publish_input.h"

namespace aw::test {
namespace {

const std::string kKeepAliveProject = "grp/app";

// The connections awaywork's API requests came on, in the fake's log (the fixture's own control
// requests and git's are left out), and how many requests there were.
std::pair<std::set<int64_t>, int> api_connections(FakeGitlab& fake) {
  std::set<int64_t> out;
  int n = 0;
  for (const auto& e : fake.log()) {
    if (!awaywork_api_request(e)) continue;
    ++n;
    out.insert(e.value("connection", int64_t{-1}));
  }
  return {out, n};
}

class GitlabKeepAlive : public FakeGitlabTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(open_project(kKeepAliveProject));
    fake->member(kKeepAliveProject, "maint", 40);
  }
};

TEST_F(GitlabKeepAlive, APublishReadsTipsByTheApiAndItsRequestsGoOverOneConnection) {
  int64_t iid = fake->control("POST", "projects/" + kKeepAliveProject + "/issues",
                              {{"username", "maint"}, {"title", "Add b"}, {"description", "b"}})
                    .value("iid", int64_t{0});
  ASSERT_GT(iid, 0) << fake->error();

  // The session as open_gitlab makes it: one client, one transport.
  auto s = gitlab_session(kKeepAliveProject, system_clock(), true);
  ASSERT_NE(s, nullptr);

  ForgePublishInput in;
  ASSERT_NO_FATAL_FAILURE(publish_b_input(*s, iid, tmp.path, in));
  in.requests = {Request{"create_pull_request", 1, "Add b", "Body", "", "", "", "", {}},
                 Request{"add_comment", 2, "", "Done.", "", "", "", "", {}},
                 Request{"add_labels", 3, "", "", "", "", "", "", {"ready"}}};

  size_t logged = fake->log().size();
  auto done = publish_to_gitlab(*s, in);
  ASSERT_TRUE(done) << done.error().message;
  // The branch's tips, before the push and verifying it, came from the API (the repository's
  // branches), not from git's ls-remote, a round trip of tens of milliseconds each: the only
  // git requests are the push's (receive-pack), none of an ls-remote's (upload-pack).
  int pushes = 0;
  auto log = fake->log();
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
  auto [connections, requests] = api_connections(*fake);
  // /user, the project, then the publish's (its branch reads, the merge request looked up and
  // posted, the notes, the issue, two notes, the labels): one connection for all of them.
  EXPECT_GE(requests, 11);
  EXPECT_EQ(connections.size(), 1u) << requests << " requests";
  EXPECT_EQ(connections.count(-1), 0u) << "the fake's log names no connection";

  // A replay (apply ID again) of the same session keeps to it too, git's push in between.
  auto again = publish_to_gitlab(*s, in);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->posted.empty());
  auto [after, more] = api_connections(*fake);
  EXPECT_GT(more, requests);
  EXPECT_EQ(after, connections);
  s->background.clear();  // the scratch's removal, before the folder goes
}

}  // namespace
}  // namespace aw::test
