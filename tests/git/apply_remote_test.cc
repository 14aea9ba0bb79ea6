// publish() (apply's git part) against the local source and a `git daemon` remote, all real git:
// a marked branch written once, a replay that does nothing, and the refusals that leave the target
// as it was. The credential's path: apply_credential_test.cc; a pull request's follow-up:
// apply_fast_forward_test.cc.
#include "apply_fixture.h"

namespace aw::test {
namespace {

TEST_F(ApplyTest, LocalTargetGetsAMarkedBranchAndASecondApplyDoesNothing) {
  ApplyTarget t;
  t.git_dir = src.git_dir;
  t.branch = "main";
  auto r = publish(request(t));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->already_applied);
  EXPECT_EQ(r->branch, "awaywork/u-1");
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/u-1", src_dir), r->commit);
  EXPECT_EQ(sh("git rev-parse awaywork/u-1^", src_dir), base);
  EXPECT_EQ(sh("git show awaywork/u-1:b.txt", src_dir), "bravo by agent");
  EXPECT_NE(sh("git log -1 --format=%B awaywork/u-1", src_dir).find("\nAwaywork-Unit: u-1"),
            std::string::npos);

  auto again = publish(request(t));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_applied);
  EXPECT_EQ(again->commit, r->commit);
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/u-1", src_dir), r->commit);
}

TEST_F(ApplyTest, GitDaemonRemoteGetsTheBranchOnceAndTheReplayIsANoop) {
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port)) << "git daemon did not start";
  std::string url = "git://127.0.0.1:" + std::to_string(d.port) + "/r.git";
  std::string main_before = remote_ref("r.git", "refs/heads/main");
  auto r = publish(request(remote(url)));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), r->commit);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1^"), base);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/main"), main_before);

  auto again = publish(request(remote(url)));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->already_applied);
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), r->commit);
}

TEST_F(ApplyTest, ExistingBranchWithoutTheMarkerIsRefusedAndUnchanged) {
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port));
  sh("git --git-dir=" + sq(srv + "/r.git") + " branch awaywork/u-1 " + base);
  auto r = publish(request(remote("git://127.0.0.1:" + std::to_string(d.port) + "/r.git")));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("without this unit's marker; not overwritten"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), base);
}

TEST_F(ApplyTest, SameUnitWithADifferentChangeIsRefused) {
  ApplyTarget t;
  t.git_dir = src.git_dir;
  auto r = publish(request(t));
  ASSERT_TRUE(r) << r.error().message;
  PublishRequest other = request(t);
  other.patch = patch.substr(0, patch.find("diff --git a/dir/new.txt"));
  other.checked_paths = {"b.txt"};
  ASSERT_EQ(other.patch.find("new.txt"), std::string::npos);
  auto again = publish(other);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("different change"), std::string::npos)
      << again.error().message;
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/u-1", src_dir), r->commit);
}

TEST_F(ApplyTest, BaseNotAnAncestorOfTheTargetBranchIsRefused) {
  // "rewritten": the same files, but a history that does not contain base.
  std::string orphan = sh("git commit-tree -m rewritten HEAD^{tree}", src_dir);
  sh("git --git-dir=" + sq(srv + "/r.git") + " fetch -q " + sq(src_dir) + " " + orphan +
     " && git --git-dir=" + sq(srv + "/r.git") + " branch rewritten " + orphan);
  sh("git init -q --bare " + sq(srv + "/only.git") + " && git --git-dir=" + sq(srv + "/r.git") +
     " push -q " + sq(srv + "/only.git") + " rewritten:main");
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port));
  std::string root = "git://127.0.0.1:" + std::to_string(d.port);
  // base is in the repository (on main) but not on the target branch
  auto r = publish(request(remote(root + "/r.git", "rewritten")));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is not an ancestor of refs/heads/rewritten"), std::string::npos)
      << r.error().message;
  // base is nowhere in the repository
  auto r2 = publish(request(remote(root + "/only.git")));
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("is not an ancestor"), std::string::npos) << r2.error().message;
  EXPECT_EQ(remote_ref("r.git", "refs/heads/awaywork/u-1"), "");
  EXPECT_EQ(remote_ref("only.git", "refs/heads/awaywork/u-1"), "");
}

// A fork's pull request (issue 26): its head is on no branch of the base repository, only on
// refs/pull/N/head there. start_ref is the one exception to "base is on the target branch", and
// a narrow one: that ref form only, read and never written.
TEST_F(ApplyTest, AForksPullRequestHeadIsTheOnlyRefABaseMayStartFromOffTheBranches) {
  std::string orphan = sh("git commit-tree -m rewritten HEAD^{tree}", src_dir);
  std::string repo = srv + "/fork-base.git";
  sh("git init -q --bare " + sq(repo) + " && git -C " + sq(src_dir) + " push -q " + sq(repo) + " " +
     orphan + ":refs/heads/main " + base + ":refs/pull/7/head");
  GitDaemon d(srv);
  ASSERT_TRUE(can_connect(d.port));
  std::string url = "git://127.0.0.1:" + std::to_string(d.port) + "/fork-base.git";

  auto off = publish(request(remote(url)));  // base is on no branch: refused, as before
  ASSERT_FALSE(off);
  EXPECT_NE(off.error().message.find("is not an ancestor"), std::string::npos)
      << off.error().message;

  PublishRequest other = request(remote(url));
  other.start_ref = "refs/heads/main";  // the exception names a pull request's head, no other
  auto wrong = publish(other);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("is not a pull request's head"), std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(remote_ref("fork-base.git", "refs/heads/awaywork/u-1"), "");

  PublishRequest req = request(remote(url));
  req.start_ref = "refs/pull/7/head";
  auto r = publish(req);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(remote_ref("fork-base.git", "refs/heads/awaywork/u-1"), r->commit);
  EXPECT_EQ(remote_ref("fork-base.git", "refs/heads/awaywork/u-1^"), base);
  EXPECT_EQ(remote_ref("fork-base.git", "refs/pull/7/head"), base) << "read, never written";
  EXPECT_EQ(remote_ref("fork-base.git", "refs/heads/main"), orphan);
}

TEST_F(ApplyTest, PathsOtherThanTheCheckedListAreRefused) {
  ApplyTarget t;
  t.git_dir = src.git_dir;
  PublishRequest req = request(t);
  req.checked_paths = {"b.txt"};
  auto r = publish(req);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("checked list"), std::string::npos) << r.error().message;
  EXPECT_FALSE(sh_capture("git rev-parse --verify --quiet awaywork/u-1", src_dir).exit_code == 0);
}

}  // namespace
}  // namespace aw::test
