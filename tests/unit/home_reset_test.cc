// The agent CLIs' folders and git's files in the unit's HOME between rounds (unit/home_reset.h):
// what a hostile round wrote, linked or replaced there is put back as it was before round 1,
// nothing outside HOME is touched through a link, and the lent Codex login stays.
#include "unit/home_reset.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "git_fixture.h"

namespace aw::test {
namespace {

std::string slurp_or(const std::string& p, const std::string& none = "<none>") {
  auto r = read_file(p);
  return r ? *r : none;
}

class HomeReset : public ::testing::Test {
 protected:
  void SetUp() override {
    home = tmp.path + "/home";
    outside = tmp.path + "/outside";
    ASSERT_TRUE(make_dirs(home + "/.claude/skills/review"));
    ASSERT_TRUE(make_dirs(home + "/.codex"));
    ASSERT_TRUE(make_dirs(outside + "/opencode"));
    ASSERT_TRUE(write_file(home + "/.claude/settings.json", "{\"hooks\": {}}\n"));
    ASSERT_TRUE(write_file(home + "/.claude/skills/review/SKILL.md", "base skill\n", 0644));
    ASSERT_EQ(::symlink("settings.json", (home + "/.claude/link").c_str()), 0);
    ASSERT_TRUE(write_file(home + "/.codex/auth.json", "lent login\n"));
    ASSERT_TRUE(write_file(home + "/notes.txt", "not a CLI's\n"));
    ASSERT_TRUE(write_file(outside + "/opencode/AGENTS.md", "the owner's own\n"));
  }
  TempDir tmp;
  std::string home, outside;
};

TEST_F(HomeReset, WhatARoundWroteInTheCliFoldersIsPutBackAndTheRestOfHomeStays) {
  auto s = snapshot_home(home);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(write_file(home + "/.claude/CLAUDE.md", "ROUND ONE SAYS\n"));
  ASSERT_TRUE(write_file(home + "/.claude/settings.json", "{\"hooks\": {\"Stop\": []}}\n"));
  ASSERT_TRUE(remove_tree(home + "/.claude/skills"));
  ASSERT_TRUE(write_file(home + "/.codex/AGENTS.md", "ROUND ONE SAYS\n"));
  ASSERT_TRUE(write_file(home + "/.codex/auth.json", "refreshed login\n"));
  ASSERT_TRUE(make_dirs(home + "/.gemini"));
  ASSERT_TRUE(write_file(home + "/.gemini/GEMINI.md", "ROUND ONE SAYS\n"));
  ASSERT_TRUE(write_file(home + "/notes.txt", "the round's\n"));
  std::vector<std::string> notes;
  auto ok = restore_home(*s, notes);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(slurp_or(home + "/.claude/CLAUDE.md"), "<none>");
  EXPECT_EQ(slurp_or(home + "/.claude/settings.json"), "{\"hooks\": {}}\n");
  EXPECT_EQ(slurp_or(home + "/.claude/skills/review/SKILL.md"), "base skill\n");
  struct stat st {};
  ASSERT_EQ(::stat((home + "/.claude/skills/review/SKILL.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  char target[64] = {};
  ASSERT_GT(::readlink((home + "/.claude/link").c_str(), target, sizeof target - 1), 0);
  EXPECT_STREQ(target, "settings.json");
  EXPECT_EQ(slurp_or(home + "/.codex/AGENTS.md"), "<none>");
  EXPECT_EQ(slurp_or(home + "/.codex/auth.json"), "refreshed login\n") << "the lease's file";
  EXPECT_FALSE(exists(home + "/.gemini"));
  EXPECT_EQ(slurp_or(home + "/notes.txt"), "the round's\n");
  EXPECT_EQ(notes.size(), 3u);  // .claude, .codex, .gemini
  std::vector<std::string> again;
  ASSERT_TRUE(restore_home(*s, again));
  EXPECT_TRUE(again.empty()) << again.front();
}

TEST_F(HomeReset, ALinkARoundPutInAFoldersPlaceIsRemovedAndNeverFollowed) {
  auto s = snapshot_home(home);
  ASSERT_TRUE(s) << s.error().message;
  // ~/.config -> the owner's own folder: a restore through it would wipe the owner's files.
  ASSERT_EQ(::symlink(outside.c_str(), (home + "/.config").c_str()), 0);
  ASSERT_TRUE(remove_tree(home + "/.claude"));
  ASSERT_EQ(::symlink((outside + "/opencode").c_str(), (home + "/.claude").c_str()), 0);
  std::vector<std::string> notes;
  auto ok = restore_home(*s, notes);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(slurp_or(outside + "/opencode/AGENTS.md"), "the owner's own\n");
  struct stat st {};
  ASSERT_EQ(::lstat((home + "/.claude").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode)) << "the link is gone, the folder is back";
  EXPECT_EQ(slurp_or(home + "/.claude/settings.json"), "{\"hooks\": {}}\n");
  // ~/.config/opencode would have been the owner's folder: the link is removed, not followed.
  EXPECT_FALSE(exists(home + "/.config")) << "the link in ~/.config's place stays";
  EXPECT_TRUE(exists(outside + "/opencode/AGENTS.md"));
}

TEST_F(HomeReset, AReplacedHomeIsAnErrorAndNothingIsWritten) {
  auto s = snapshot_home(home);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(::rename(home.c_str(), (tmp.path + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), home.c_str()), 0);
  std::vector<std::string> notes;
  auto ok = restore_home(*s, notes);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("was replaced"), std::string::npos) << ok.error().message;
  EXPECT_FALSE(exists(outside + "/.claude"));
}

// git's own files in HOME: what setup left in ~/.gitconfig stays, what a round added there or in
// ~/.config/git (a filter, core.hooksPath, attributes switching it on) is gone before the next.
TEST_F(HomeReset, GitsGlobalConfigAndAttributesArePutBack) {
  ASSERT_TRUE(write_file(home + "/.gitconfig", "[user]\n\tname = setup\n"));
  auto s = snapshot_home(home);
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_TRUE(write_file(home + "/.gitconfig",
                         "[user]\n\tname = setup\n[filter \"x\"]\n\tclean = touch /tmp/x\n"));
  ASSERT_TRUE(make_dirs(home + "/.config/git"));
  ASSERT_TRUE(write_file(home + "/.config/git/config", "[core]\n\thooksPath = /tmp/hooks\n"));
  ASSERT_TRUE(write_file(home + "/.config/git/attributes", "* filter=x\n"));
  std::vector<std::string> notes;
  auto ok = restore_home(*s, notes);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(slurp_or(home + "/.gitconfig"), "[user]\n\tname = setup\n");
  EXPECT_FALSE(exists(home + "/.config/git"));
  std::string all;
  for (const auto& n : notes) all += n + "\n";
  EXPECT_NE(all.find("~/.gitconfig put back"), std::string::npos) << all;
  EXPECT_NE(all.find("~/.config/git put back"), std::string::npos) << all;
}

}  // namespace
}  // namespace aw::test
