#include <unistd.h>

#include "git_fixture.h"

namespace aw::test {
namespace {

bool any_note_has(const std::vector<std::string>& notes, const std::string& s) {
  for (const auto& n : notes)
    if (n.find(s) != std::string::npos) return true;
  return false;
}

TEST_F(GitTest, UntouchedCloneVerifiesWithoutNotes) {
  Clone c = clone_at(base);
  std::vector<std::string> notes;
  auto st = verify_and_restore(c, notes);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_TRUE(notes.empty());
}

TEST_F(GitTest, RestoreRewritesConfigAndRemovesHooksButKeepsSamples) {
  Clone c = clone_at(base);
  ASSERT_TRUE(write_file(work + "/.git/config", "[core]\n\thooksPath = /tmp\n"));
  ASSERT_EQ(::mkdir((work + "/.git/hooks").c_str(), 0700), 0);
  marker_script("unused");
  ASSERT_TRUE(write_file(work + "/.git/hooks/pre-commit", "#!/bin/sh\n", 0755));
  ASSERT_TRUE(write_file(work + "/.git/hooks/pre-commit.sample", "#!/bin/sh\n", 0755));
  std::vector<std::string> notes;
  ASSERT_TRUE(verify_and_restore(c, notes));
  EXPECT_EQ(slurp(work + "/.git/config"), c.saved_config);
  EXPECT_FALSE(exists(work + "/.git/hooks/pre-commit"));
  EXPECT_TRUE(exists(work + "/.git/hooks/pre-commit.sample"));
  EXPECT_TRUE(any_note_has(notes, "restored .git/config"));
  EXPECT_TRUE(any_note_has(notes, "pre-commit"));
}

TEST_F(GitTest, DotGitReplacedByASymlinkLosesTheClone) {
  Clone c = clone_at(base);
  ASSERT_EQ(::rename((work + "/.git").c_str(), (tmp.path + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink((tmp.path + "/moved").c_str(), (work + "/.git").c_str()), 0);
  std::vector<std::string> notes;
  auto st = verify_and_restore(c, notes);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("link"), std::string::npos) << st.error().message;
}

TEST_F(GitTest, DotGitReplacedByAGitfileLosesTheClone) {
  Clone c = clone_at(base);
  ASSERT_EQ(::rename((work + "/.git").c_str(), (tmp.path + "/moved").c_str()), 0);
  ASSERT_TRUE(write_file(work + "/.git", "gitdir: " + tmp.path + "/moved\n"));
  std::vector<std::string> notes;
  EXPECT_FALSE(verify_and_restore(c, notes));
}

TEST_F(GitTest, DotGitReplacedByAnotherFolderLosesTheClone) {
  Clone c = clone_at(base);
  ASSERT_EQ(::rename((work + "/.git").c_str(), (tmp.path + "/moved").c_str()), 0);
  sh("cp -a " + sq(tmp.path + "/moved") + " " + sq(work + "/.git"));
  std::vector<std::string> notes;
  EXPECT_FALSE(verify_and_restore(c, notes));
}

TEST_F(GitTest, CloneFolderReplacedBySymlinkToAnotherRepoIsLostAndThatRepoUntouched) {
  Clone c = clone_at(base);
  std::string victim = tmp.path + "/victim";
  sh("git init -q " + sq(victim) + " && printf '[core]\\n\\tmine = yes\\n' > " +
     sq(victim + "/.git/config"));
  std::string before = slurp(victim + "/.git/config");
  ASSERT_EQ(::rename(work.c_str(), (tmp.path + "/old-work").c_str()), 0);
  ASSERT_EQ(::symlink(victim.c_str(), work.c_str()), 0);
  std::vector<std::string> notes;
  EXPECT_FALSE(verify_and_restore(c, notes));
  EXPECT_FALSE(make_patch(c));
  EXPECT_EQ(slurp(victim + "/.git/config"), before);
}

TEST_F(GitTest, AlternatesCommondirOrGitdirLoseTheClone) {
  for (std::string rel : {"/objects/info/alternates", "/commondir", "/gitdir"}) {
    Clone c = clone_at(base);
    std::string p = work + "/.git" + rel;
    ASSERT_TRUE(make_dirs(p.substr(0, p.rfind('/'))));
    ASSERT_TRUE(write_file(p, tmp.path + "\n"));
    std::vector<std::string> notes;
    auto st = verify_and_restore(c, notes);
    EXPECT_FALSE(st) << rel;
    // Found before anything was repaired.
    EXPECT_TRUE(notes.empty());
    ASSERT_TRUE(remove_tree(tmp.path + "/run"));
    ASSERT_EQ(::mkdir((tmp.path + "/run").c_str(), 0700), 0);
  }
}

TEST_F(GitTest, ConfigAndHooksLinksAreReplacedNeverFollowed) {
  Clone c = clone_at(base);
  std::string outside_cfg = tmp.path + "/outside-config";
  std::string outside_hooks = tmp.path + "/outside-hooks";
  ASSERT_TRUE(write_file(outside_cfg, "owner's file\n"));
  ASSERT_TRUE(make_dirs(outside_hooks));
  ASSERT_TRUE(write_file(outside_hooks + "/pre-commit", "owner's hook\n", 0755));
  ASSERT_EQ(::unlink((work + "/.git/config").c_str()), 0);
  ASSERT_EQ(::symlink(outside_cfg.c_str(), (work + "/.git/config").c_str()), 0);
  ASSERT_EQ(::symlink(outside_hooks.c_str(), (work + "/.git/hooks").c_str()), 0);
  std::vector<std::string> notes;
  auto st = verify_and_restore(c, notes);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(slurp(outside_cfg), "owner's file\n");
  EXPECT_EQ(slurp(outside_hooks + "/pre-commit"), "owner's hook\n");
  EXPECT_EQ(slurp(work + "/.git/config"), c.saved_config);
  EXPECT_FALSE(exists(work + "/.git/hooks"));
  EXPECT_TRUE(any_note_has(notes, "link"));
}

}  // namespace
}  // namespace aw::test
