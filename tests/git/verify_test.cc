#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "base/unique_fd.h"
#include "git/dir_at.h"
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

// A phase that switches a filter on in .git/info/attributes (the filter itself defined where the
// next phase's git reads config, here a global file): after the restore the next git run in the
// clone no longer runs it, and .git/info holds only what make_clone wrote.
TEST_F(GitTest, InfoAPhaseChangedIsPutBackAndItsFilterNoLongerRuns) {
  Clone c = clone_at(base);
  std::string attributes = slurp(work + "/.git/info/attributes");
  std::string exclude = slurp(work + "/.git/info/exclude");
  EXPECT_NE(attributes.find("!filter"), std::string::npos) << attributes;
  EXPECT_NE(exclude.find("/.away/"), std::string::npos) << exclude;
  std::string global = tmp.path + "/global-config";
  ASSERT_TRUE(write_file(global, "[filter \"x\"]\n\tclean = " + marker_script("filter") + "\n"));
  ASSERT_TRUE(write_file(work + "/.git/info/attributes", "* filter=x\n"));
  ASSERT_TRUE(write_file(work + "/.git/info/exclude", "*.txt\n"));
  ASSERT_TRUE(write_file(work + "/.git/info/grafts", "planted\n"));
  ASSERT_TRUE(make_dirs(work + "/.git/info/sub"));
  ASSERT_TRUE(write_file(work + "/a.txt", "ALPHA\n", 0644));  // same size: git reads it
  std::string status = "GIT_CONFIG_GLOBAL=" + sq(global) + " git status --porcelain";
  sh(status, work);
  ASSERT_TRUE(exists(marker)) << "the planted filter runs before the restore";
  ASSERT_EQ(::unlink(marker.c_str()), 0);
  std::vector<std::string> notes;
  auto st = verify_and_restore(c, notes);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_EQ(slurp(work + "/.git/info/attributes"), attributes);
  EXPECT_EQ(slurp(work + "/.git/info/exclude"), exclude);
  EXPECT_FALSE(exists(work + "/.git/info/grafts"));
  EXPECT_FALSE(exists(work + "/.git/info/sub"));
  for (const char* n : {"restored .git/info/attributes", "restored .git/info/exclude",
                        "removed .git/info/grafts", "removed .git/info/sub"})
    EXPECT_TRUE(any_note_has(notes, n)) << n;
  EXPECT_EQ(sh(status, work), " M a.txt");
  EXPECT_FALSE(exists(marker)) << slurp(marker);
  std::vector<std::string> again;
  ASSERT_TRUE(verify_and_restore(c, again));
  EXPECT_TRUE(again.empty()) << again.front();
}

TEST_F(GitTest, InfoOrItsFilesAsLinksAreReplacedNeverFollowed) {
  Clone c = clone_at(base);
  std::string attributes = slurp(work + "/.git/info/attributes");
  std::string outside = tmp.path + "/outside";
  ASSERT_TRUE(make_dirs(outside));
  ASSERT_TRUE(write_file(outside + "/attributes", "the owner's\n"));
  ASSERT_TRUE(write_file(outside + "/other", "the owner's\n"));
  ASSERT_EQ(::unlink((work + "/.git/info/attributes").c_str()), 0);
  ASSERT_EQ(::symlink((outside + "/attributes").c_str(), (work + "/.git/info/attributes").c_str()),
            0);
  std::vector<std::string> notes;
  ASSERT_TRUE(verify_and_restore(c, notes));
  EXPECT_EQ(slurp(work + "/.git/info/attributes"), attributes);
  EXPECT_EQ(slurp(outside + "/attributes"), "the owner's\n");
  ASSERT_TRUE(remove_tree(work + "/.git/info"));
  ASSERT_EQ(::symlink(outside.c_str(), (work + "/.git/info").c_str()), 0);
  notes.clear();
  ASSERT_TRUE(verify_and_restore(c, notes));
  struct stat st {};
  ASSERT_EQ(::lstat((work + "/.git/info").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(slurp(work + "/.git/info/attributes"), attributes);
  EXPECT_EQ(slurp(outside + "/attributes"), "the owner's\n");
  EXPECT_EQ(slurp(outside + "/other"), "the owner's\n");
  EXPECT_TRUE(any_note_has(notes, "not a folder"));
}

// A round leaves a nested repository whose config runs a command (core.fsmonitor) and puts it in
// the clone's index as a gitlink: `git status` at the top recurses into it and runs that command.
// After remove_nested_repos neither the top's git nor git in that folder runs it, and nothing
// outside the clone (a linked folder holding a repository) is touched.
TEST_F(GitTest, NestedRepositoriesAreRemovedAndTheirConfigNoLongerRunsFromTheTop) {
  Clone c = clone_at(base);
  std::string monitor = tmp.path + "/monitor";
  ASSERT_TRUE(
      write_file(monitor, "#!/bin/sh\necho fsmonitor >> " + sq(marker) + "\nexit 1\n", 0755));
  sh("git init -q sub && printf 's\\n' > sub/s.txt && git -C sub add s.txt && "
     "git -C sub commit -q -m s && git add sub && git -C sub config core.fsmonitor " +
         sq(monitor),
     work);
  std::string outside = tmp.path + "/outside-repo";
  sh("git init -q " + sq(outside));
  ASSERT_TRUE(make_dirs(work + "/dir/inner"));
  ASSERT_TRUE(write_file(work + "/dir/inner/.git", "gitdir: " + outside + "/.git\n"));
  ASSERT_EQ(::symlink(outside.c_str(), (work + "/linked").c_str()), 0);
  ASSERT_TRUE(make_dirs(work + "/.away/home/cache/.git"));
  ASSERT_TRUE(make_dirs(work + "/.git/modules/m"));
  ASSERT_TRUE(write_file(work + "/.git/modules/m/config", "[core]\n\tfsmonitor = x\n"));
  sh("git status --porcelain", work);
  ASSERT_TRUE(exists(marker)) << "the nested repository's fsmonitor runs before the removal";
  ASSERT_EQ(::unlink(marker.c_str()), 0);
  std::vector<std::string> notes;
  auto st = remove_nested_repos(c, notes);
  ASSERT_TRUE(st) << st.error().message;
  EXPECT_FALSE(exists(work + "/sub/.git"));
  EXPECT_EQ(slurp(work + "/sub/s.txt"), "s\n");
  EXPECT_FALSE(exists(work + "/dir/inner/.git"));
  EXPECT_FALSE(exists(work + "/.away/home/cache/.git"));
  EXPECT_FALSE(exists(work + "/.git/modules"));
  EXPECT_TRUE(exists(work + "/.git/config"));
  EXPECT_TRUE(exists(outside + "/.git/config")) << "a linked folder is never entered";
  for (const char* n : {"removed sub/.git", "removed dir/inner/.git",
                        "removed .away/home/cache/.git", "removed .git/modules"})
    EXPECT_TRUE(any_note_has(notes, n)) << n;
  sh("git status --porcelain", work);
  sh("git status --porcelain", work + "/sub");
  EXPECT_FALSE(exists(marker)) << slurp(marker);
  std::vector<std::string> again;
  ASSERT_TRUE(remove_nested_repos(c, again));
  EXPECT_TRUE(again.empty()) << again.front();
}

// The listing clear_hooks and restore_info share (issue 40): a folder's entries without "." and
// "..", and an Error naming the folder when it cannot be read, never an empty list that would
// leave a planted hook in place.
TEST_F(GitTest, ReadEntriesListsAFolderAndNamesOneItCannotRead) {
  std::string dir = tmp.path + "/listed";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_TRUE(write_file(dir + "/a", "x"));
  ASSERT_EQ(::mkdir((dir + "/b").c_str(), 0700), 0);
  UniqueFd fd(::open(dir.c_str(), kDirAtFlags));
  ASSERT_GE(fd.get(), 0);
  auto listed = read_entries(fd.get(), dir);
  ASSERT_TRUE(listed) << listed.error().message;
  std::vector<std::string> names;
  for (const auto& e : *listed) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));

  UniqueFd file(::open((dir + "/a").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_GE(file.get(), 0);
  auto unread = read_entries(file.get(), dir + "/a");
  ASSERT_FALSE(unread);
  EXPECT_NE(unread.error().message.find("read " + dir + "/a"), std::string::npos);
  EXPECT_TRUE(entries_in(file.get()).empty());
}

}  // namespace
}  // namespace aw::test
