#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "git_fixture.h"

namespace aw::test {
namespace {

std::set<ino_t> file_inodes(const std::string& dir) {
  std::set<ino_t> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.insert(st.st_ino);
  }
  return out;
}

TEST_F(GitTest, OpenSourceFindsGitDirAndWorkTree) {
  EXPECT_EQ(src.git_dir, src_dir + "/.git");
  EXPECT_EQ(src.work_tree, src_dir);
  EXPECT_FALSE(open_source(tmp.path + "/nothing"));
  ASSERT_EQ(::chdir(tmp.path.c_str()), 0);
  auto rel = open_source("source/dir");
  ASSERT_EQ(::chdir("/"), 0);
  ASSERT_TRUE(rel) << rel.error().message;
  EXPECT_EQ(rel->git_dir, src.git_dir);
  EXPECT_FALSE(open_source(tmp.path + "/run"));
}

TEST_F(GitTest, ResolveCommitTakesRefsAndRefusesOptionsAndUnknowns) {
  EXPECT_EQ(*resolve_commit(src, ""), head);
  EXPECT_EQ(*resolve_commit(src, "main"), head);
  EXPECT_EQ(*resolve_commit(src, "main~1"), base);
  EXPECT_FALSE(resolve_commit(src, "no-such-branch"));
  EXPECT_FALSE(resolve_commit(src, "--all"));
}

TEST_F(GitTest, CloneCopiesObjectsAndSharesNoInodeWithTheSource) {
  Clone c = clone_at(base);
  auto theirs = file_inodes(src.git_dir + "/objects");
  auto ours = file_inodes(c.work + "/.git/objects");
  ASSERT_FALSE(ours.empty());
  for (ino_t i : ours) EXPECT_EQ(theirs.count(i), 0u) << "object file shares inode " << i;
  EXPECT_FALSE(exists(c.work + "/.git/objects/info/alternates"));
  // Both commits are readable from the clone on its own.
  sh("git --git-dir=.git cat-file -e " + head, c.work);
}

TEST_F(GitTest, CloneChecksOutBaseOnTheBranchWithAwayworksConfig) {
  Clone c = clone_at(base);
  EXPECT_EQ(slurp(c.work + "/a.txt"), "alpha\n");
  EXPECT_EQ(sh("git symbolic-ref HEAD", c.work), "refs/heads/main");
  EXPECT_EQ(sh("git rev-parse HEAD", c.work), base);
  EXPECT_EQ(sh("git status --porcelain", c.work), "");
  EXPECT_EQ(slurp(c.work + "/.git/config"), c.saved_config);
  EXPECT_EQ(c.saved_config.find("remote"), std::string::npos);
  EXPECT_EQ(c.base_commit, base);
  EXPECT_EQ(*dir_id(c.work), c.work_id);
}

TEST_F(GitTest, ShadowBorrowsSourceObjectsAndKeepsTheIndexMtime) {
  Clone c = clone_at(base);
  EXPECT_EQ(slurp(c.shadow + "/objects/info/alternates"), src.git_dir + "/objects\n");
  EXPECT_EQ(slurp(c.shadow + "/HEAD"), base + "\n");
  EXPECT_EQ(slurp(c.shadow + "/index"), slurp(c.work + "/.git/index"));
  struct stat a {
  }, b{};
  ASSERT_EQ(::stat((c.work + "/.git/index").c_str(), &a), 0);
  ASSERT_EQ(::stat((c.shadow + "/index").c_str(), &b), 0);
  EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
  EXPECT_EQ(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
}

TEST_F(GitTest, CloneRefusesAnExistingFolderAndBadNames) {
  ASSERT_EQ(::mkdir(work.c_str(), 0700), 0);
  EXPECT_FALSE(make_clone(src, base, "main", work, shadow));
  ASSERT_EQ(::rmdir(work.c_str()), 0);
  EXPECT_FALSE(make_clone(src, base, "-x", work, shadow));
  EXPECT_FALSE(make_clone(src, base, "a..b", work, shadow));
  EXPECT_FALSE(make_clone(src, "main", "main", work, shadow));
}

TEST_F(GitTest, CloneFromASourceWithAlternatesBorrowsNothing) {
  std::string other = tmp.path + "/borrower";
  sh("git clone -q --shared " + sq(src_dir) + " " + sq(other));
  auto s = open_source(other);
  ASSERT_TRUE(s);
  auto c = make_clone(*s, base, "main", work, shadow);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(exists(work + "/.git/objects/info/alternates"));
  std::vector<std::string> notes;
  EXPECT_TRUE(verify_and_restore(*c, notes));
  EXPECT_EQ(slurp(work + "/b.txt"), "bravo\n");
}

TEST_F(GitTest, CloneFromALinkedWorktreeSource) {
  std::string wt = tmp.path + "/linked";
  sh("git worktree add -q -b side " + sq(wt) + " " + base, src_dir);
  auto linked = open_source(wt);
  ASSERT_TRUE(linked);
  auto c = make_clone(*linked, head, "side", work, shadow);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(slurp(work + "/a.txt"), "alpha two\n");
  auto p = make_patch(*c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->text, "");
}

}  // namespace
}  // namespace aw::test
