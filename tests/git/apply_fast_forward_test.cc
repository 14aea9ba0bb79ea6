// publish_fast_forward(): a pull request's follow-up pushed as one commit on top of its branch,
// against the local source and a `git daemon` remote, all real git.
#include "apply_fixture.h"

namespace aw::test {
namespace {

// Issue 26, item 4: a pull request's follow-up is one new commit on the pull request's branch, a
// fast-forward of the commit the unit started from; a branch that moved gets nothing.
class FastForwardTest : public ApplyTest {
 protected:
  FastForwardRequest ff(ApplyTarget target, const std::string& start) {
    FastForwardRequest r;
    r.target = std::move(target);
    r.unit_id = "u-2";
    r.base_commit = start;
    r.patch = patch;
    r.checked_paths = paths;
    r.message = "awaywork: address the review\n\nUnit u-2.\n";
    r.scratch_dir = scratch;
    r.askpass = AW_TEST_ASKPASS;
    return r;
  }
  std::string git_daemon_url(const GitDaemon& d) {
    return "git://127.0.0.1:" + std::to_string(d.port) + "/r.git";
  }
};

TEST_F(FastForwardTest, ALocalBranchGetsOneCommitOnTopAndTheReplayIsANoop) {
  sh("git branch pr " + base, src_dir);
  ApplyTarget t;
  t.git_dir = src.git_dir;
  t.branch = "pr";
  auto r = publish_fast_forward(ff(t, base));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->already_applied);
  EXPECT_EQ(r->branch, "pr");
  EXPECT_EQ(sh("git rev-parse refs/heads/pr", src_dir), r->commit);
  EXPECT_EQ(sh("git rev-list --parents -n 1 pr", src_dir), r->commit + " " + base);
  EXPECT_EQ(sh("git show pr:b.txt", src_dir), "bravo by agent");
  EXPECT_NE(sh("git log -1 --format=%B pr", src_dir).find("\nAwaywork-Unit: u-2"),
            std::string::npos);
  EXPECT_NE(sh_capture("git rev-parse --verify --quiet awaywork/u-2", src_dir).exit_code, 0)
      << "no branch of its own";

  auto again = publish_fast_forward(ff(t, base));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_applied);
  EXPECT_EQ(again->commit, r->commit);
  EXPECT_EQ(sh("git rev-parse refs/heads/pr", src_dir), r->commit);
}

TEST_F(FastForwardTest, ARemoteBranchGetsOneCommitWithoutForceAndNothingElseMoves) {
  sh("git --git-dir=" + sq(srv + "/r.git") + " branch pr " + base);
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port)) << "git daemon did not start";
  std::string main_before = remote_ref("r.git", "refs/heads/main");
  auto r = publish_fast_forward(ff(remote(git_daemon_url(d), "pr"), base));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr"), r->commit);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr^"), base);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr^2"), "") << "one parent";
  EXPECT_EQ(remote_ref("r.git", "refs/heads/main"), main_before);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-2"), "");

  auto again = publish_fast_forward(ff(remote(git_daemon_url(d), "pr"), base));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr"), r->commit);
}

TEST_F(FastForwardTest, ABranchThatMovedGetsNothingAndTheErrorSaysSo) {
  // Someone pushed on top of where the unit started (head is a child of base).
  sh("git --git-dir=" + sq(srv + "/r.git") + " branch pr " + head);
  // Someone rewrote the branch without the unit's start.
  std::string orphan = sh("git commit-tree -m rewritten HEAD^{tree}", src_dir);
  sh("git --git-dir=" + sq(srv + "/r.git") + " fetch -q " + sq(src_dir) + " " + orphan +
     " && git --git-dir=" + sq(srv + "/r.git") + " branch rewritten " + orphan);
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port));
  auto r = publish_fast_forward(ff(remote(git_daemon_url(d), "pr"), base));
  ASSERT_FALSE(r);
  EXPECT_NE(
      r.error().message.find("refs/heads/pr on git://127.0.0.1:" + std::to_string(d.port) +
                             "/r.git moved: it is at " + head.substr(0, 12) + " now, not at " +
                             base.substr(0, 12) + " where this unit started; nothing was pushed"),
      std::string::npos)
      << r.error().message;
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr"), head);

  auto rewritten = publish_fast_forward(ff(remote(git_daemon_url(d), "rewritten"), base));
  ASSERT_FALSE(rewritten);
  EXPECT_NE(rewritten.error().message.find("moved: it is at " + orphan.substr(0, 12)),
            std::string::npos)
      << rewritten.error().message;
  EXPECT_EQ(remote_ref("r.git", "refs/heads/rewritten"), orphan);

  // A local target the same.
  sh("git branch pr " + head, src_dir);
  ApplyTarget t;
  t.git_dir = src.git_dir;
  t.branch = "pr";
  auto local = publish_fast_forward(ff(t, base));
  ASSERT_FALSE(local);
  EXPECT_NE(local.error().message.find("moved"), std::string::npos) << local.error().message;
  EXPECT_EQ(sh("git rev-parse refs/heads/pr", src_dir), head);
}

TEST_F(FastForwardTest, ABranchRewoundAfterTheReadIsNeverPushedOver) {
  // The read says the branch is still at the unit's start (head): a forge's API that lags, or a
  // push that lands between the read and awaywork's push. In fact it was rewound to base, so a
  // plain push of head's child would be a fast-forward from base and restore what was dropped.
  std::string mirror = tmp.path + "/mirror.git";
  sh("git clone -q --bare " + sq(src_dir) + " " + sq(mirror));
  sh("git --git-dir=" + sq(srv + "/r.git") + " branch pr " + base);
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port));
  ApplyTarget t = remote(git_daemon_url(d), "pr");
  t.borrow_objects_of = mirror;  // nothing to fetch: the read alone decides what awaywork sees
  int reads = 0;
  t.read_ref = [&](const std::string& ref) -> Result<std::optional<std::string>> {
    EXPECT_EQ(ref, "refs/heads/pr");
    ++reads;
    return std::optional<std::string>(head);
  };
  auto r = publish_fast_forward(ff(t, head));
  ASSERT_FALSE(r);
  EXPECT_GE(reads, 1);
  EXPECT_NE(r.error().message.find("moved"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("nothing was pushed"), std::string::npos);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/pr"), base);
}

TEST_F(FastForwardTest, ABadBranchOrAnEmptyPatchIsRefusedBeforeAnyGit) {
  ApplyTarget t;
  t.git_dir = src.git_dir;
  auto none = publish_fast_forward(ff(t, base));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("invalid branch ''"), std::string::npos);
  t.branch = "-x";
  EXPECT_FALSE(publish_fast_forward(ff(t, base)));
  t.branch = "pr";
  FastForwardRequest empty = ff(t, base);
  empty.patch.clear();
  auto e = publish_fast_forward(empty);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("the patch is empty"), std::string::npos);
}

}  // namespace
}  // namespace aw::test
