#include "git_fixture.h"

namespace aw::test {
namespace {

// Everything of the owner's repository that publish must leave alone.
struct Snapshot {
  std::string status, head, head_ref, refs, index, dirty, config;
  bool operator==(const Snapshot&) const = default;
};

class PublishTest : public GitTest {
 protected:
  Snapshot snap() {
    return {sh("git status --porcelain=v1 --untracked-files=all", src_dir),
            sh("git rev-parse HEAD", src_dir),
            sh("git symbolic-ref HEAD", src_dir),
            sh("git for-each-ref --format='%(refname) %(objectname)' | grep -v awaywork/ || true",
               src_dir),
            slurp(src.git_dir + "/index"),
            slurp(src_dir + "/a.txt"),
            slurp(src.git_dir + "/config")};
  }
  // The owner is mid-work: a dirty file, a staged file, an untracked one.
  void dirty_owner() {
    sh("printf 'owner wip\\n' > a.txt && printf 'staged\\n' > s.txt && git add s.txt && "
       "printf 'u\\n' > untracked.txt",
       src_dir);
  }
  std::string patch_with_change() {
    Clone c = clone_at(base);
    EXPECT_TRUE(write_file(work + "/b.txt", "bravo by agent\n", 0644));
    EXPECT_TRUE(write_file(work + "/dir/new.txt", "new\n", 0644));
    auto p = make_patch(c);
    EXPECT_TRUE(p);
    return p ? p->text : "";
  }
};

TEST_F(PublishTest, PublishCreatesTheBranchWithTheChangeOnTopOfBase) {
  std::string patch = patch_with_change();
  auto id =
      publish_branch(src, base, patch, "awaywork/u1", Identity{}, "Agent change\n\nbody", scratch);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(sh("git rev-parse refs/heads/awaywork/u1", src_dir), *id);
  EXPECT_EQ(sh("git rev-parse awaywork/u1^", src_dir), base);
  EXPECT_EQ(sh("git show awaywork/u1:b.txt", src_dir), "bravo by agent");
  EXPECT_EQ(sh("git show awaywork/u1:dir/new.txt", src_dir), "new");
  EXPECT_EQ(sh("git log -1 --format='%an <%ae>|%cn|%s' awaywork/u1", src_dir),
            "awaywork <awaywork@localhost>|awaywork|Agent change");
  EXPECT_EQ(sh("git diff-tree -r --name-only --no-commit-id awaywork/u1", src_dir),
            "b.txt\ndir/new.txt");
}

TEST_F(PublishTest, OwnersWorkTreeIndexHeadAndRefsAreUntouched) {
  std::string patch = patch_with_change();
  dirty_owner();
  Snapshot before = snap();
  auto id = publish_branch(src, base, patch, "awaywork/u2", Identity{"Bot", "bot@example.com"},
                           "msg", scratch);
  ASSERT_TRUE(id) << id.error().message;
  Snapshot after = snap();
  EXPECT_EQ(before.status, after.status);
  EXPECT_EQ(before.head, after.head);
  EXPECT_EQ(before.head_ref, after.head_ref);
  EXPECT_EQ(before.refs, after.refs);
  EXPECT_EQ(before.index, after.index);
  EXPECT_EQ(before.dirty, "owner wip\n");
  EXPECT_EQ(before.dirty, after.dirty);
  EXPECT_EQ(before.config, after.config);
}

TEST_F(PublishTest, RefusesAnExistingBranchAndLeavesItUnchanged) {
  std::string patch = patch_with_change();
  sh("git branch awaywork/u3 " + base, src_dir);
  auto id = publish_branch(src, base, patch, "awaywork/u3", Identity{}, "m", scratch);
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("already exists"), std::string::npos);
  EXPECT_EQ(sh("git rev-parse awaywork/u3", src_dir), base);
}

TEST_F(PublishTest, EmptyPatchIsNothingToPublish) {
  auto id = publish_branch(src, base, "", "awaywork/u4", Identity{}, "m", scratch);
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("nothing to publish"), std::string::npos);
  EXPECT_EQ(sh_capture("git rev-parse --verify -q awaywork/u4", src_dir).exit_code, 1);
}

TEST_F(PublishTest, PatchThatDoesNotApplyPublishesNothing) {
  std::string patch =
      "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-not there\n+x\n";
  auto id = publish_branch(src, base, patch, "awaywork/u5", Identity{}, "m", scratch);
  ASSERT_FALSE(id);
  EXPECT_EQ(sh_capture("git rev-parse --verify -q awaywork/u5", src_dir).exit_code, 1);
}

TEST_F(PublishTest, SourceHooksDoNotRunOnPublish) {
  std::string patch = patch_with_change();
  for (std::string h : {"pre-receive", "update", "post-receive", "post-update",
                        "reference-transaction", "proc-receive", "push-to-checkout"}) {
    std::string script = marker_script(h);
    sh("cp " + sq(script) + " .git/hooks/" + h, src_dir);
  }
  auto id = publish_branch(src, base, patch, "awaywork/u6", Identity{}, "m", scratch);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_FALSE(exists(marker)) << slurp(marker);
  // The hooks are real: a plain push would have run them.
  sh("git push -q . " + *id + ":refs/heads/plain-push", src_dir);
  EXPECT_TRUE(exists(marker));
}

TEST_F(PublishTest, SourceThatIsALinkedWorktreeGetsTheBranchInItsRepository) {
  std::string patch = patch_with_change();
  std::string wt = tmp.path + "/linked";
  sh("git worktree add -q -b side " + sq(wt) + " " + base, src_dir);
  auto linked = open_source(wt);
  ASSERT_TRUE(linked);
  EXPECT_NE(linked->git_dir, src.git_dir);
  EXPECT_EQ(*resolve_commit(*linked, ""), base);
  auto id = publish_branch(*linked, base, patch, "awaywork/wt", Identity{}, "m", scratch);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(sh("git rev-parse awaywork/wt", src_dir), *id);
  EXPECT_EQ(sh("git rev-parse HEAD", wt), base);
  EXPECT_EQ(sh("git status --porcelain", wt), "");
}

TEST_F(PublishTest, Sha256SourceWorksEndToEnd) {
  std::string dir = tmp.path + "/sha256";
  sh("git init -q --object-format=sha256 -b main " + sq(dir) + " && cd " + sq(dir) +
     " && printf 'x\\n' > x.txt && git add -A && git commit -q -m one");
  auto s = open_source(dir);
  ASSERT_TRUE(s);
  auto b = resolve_commit(*s, "");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->size(), 64u);
  auto c = make_clone(*s, *b, "main", work, shadow);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(write_file(work + "/x.txt", "y\n", 0644));
  ASSERT_TRUE(write_file(work + "/bin.dat", std::string("\0\1", 2), 0644));
  auto p = make_patch(*c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, std::vector<std::string>{"x.txt"});
  EXPECT_EQ(p->omitted, std::vector<std::string>{"bin.dat"});
  auto id = publish_branch(*s, *b, p->text, "awaywork/sha", Identity{}, "m", scratch);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(sh("git show awaywork/sha:x.txt", dir), "y");
}

TEST_F(PublishTest, InvalidBranchNamesAreRefused) {
  std::string patch = patch_with_change();
  for (std::string b : {"-f", "a..b", "x~1", "has space", ""})
    EXPECT_FALSE(publish_branch(src, base, patch, b, Identity{}, "m", scratch)) << b;
}

}  // namespace
}  // namespace aw::test
