#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "git_fixture.h"

namespace aw::test {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_F(GitTest, UnchangedCloneGivesAnEmptyPatch) {
  Clone c = clone_at(base);
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->text, "");
  EXPECT_TRUE(p->paths.empty());
  EXPECT_EQ(p->stat, "");
}

TEST_F(GitTest, PatchHasModifiedDeletedAndUntrackedButNotIgnoredFiles) {
  Clone c = clone_at(base);
  ASSERT_TRUE(write_file(work + "/a.txt", "alpha changed\n", 0644));
  ASSERT_EQ(::unlink((work + "/b.txt").c_str()), 0);
  ASSERT_TRUE(write_file(work + "/dir/new.txt", "new file\n", 0644));
  ASSERT_TRUE(write_file(work + "/debug.log", "ignored\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, (std::vector<std::string>{"a.txt", "b.txt", "dir/new.txt"}));
  EXPECT_NE(p->text.find("+alpha changed"), std::string::npos);
  EXPECT_NE(p->text.find("deleted file mode 100644"), std::string::npos);
  EXPECT_NE(p->text.find("+new file"), std::string::npos);
  EXPECT_EQ(p->text.find("debug.log"), std::string::npos);
  EXPECT_EQ(p->stat, "3 files changed, 2 insertions(+), 2 deletions(-)");
  // The clone's own index is not what was used (the agent's .git is not read).
  EXPECT_EQ(sh("git diff --cached --name-only", work), "");
}

TEST_F(GitTest, AgentCommitInsideTheCloneIsStillCapturedAgainstBase) {
  Clone c = clone_at(base);
  sh("printf 'committed by agent\\n' > b.txt && git add b.txt && git commit -q -m agent", work);
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, std::vector<std::string>{"b.txt"});
  EXPECT_NE(p->text.find("+committed by agent"), std::string::npos);
  EXPECT_NE(p->text.find("-bravo"), std::string::npos);
}

TEST_F(GitTest, AgentsInfoExcludeAndIndexCannotHideAFile) {
  Clone c = clone_at(base);
  ASSERT_TRUE(make_dirs(work + "/.git/info"));
  ASSERT_TRUE(write_file(work + "/.git/info/exclude", "hidden.txt\n"));
  ASSERT_TRUE(write_file(work + "/hidden.txt", "sneaky\n", 0644));
  ASSERT_TRUE(write_file(work + "/a.txt", "alpha changed\n", 0644));
  sh("git update-index --assume-unchanged a.txt", work);
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(has(p->paths, "hidden.txt"));
  EXPECT_TRUE(has(p->paths, "a.txt"));
}

TEST_F(GitTest, AwayFolderIsNeverCollectedEvenWhenTheAgentUnignoresIt) {
  Clone c = clone_at(base);
  ASSERT_TRUE(make_dirs(work + "/.away/home"));
  ASSERT_TRUE(write_file(work + "/.away/home/.bash_history", "ls\n", 0644));
  ASSERT_TRUE(write_file(work + "/.away/prompt.md", "the prompt\n", 0644));
  ASSERT_TRUE(write_file(work + "/.gitignore", "!/.away/\n!.away\n", 0644));
  ASSERT_TRUE(write_file(work + "/a.txt", "alpha changed\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(has(p->paths, "a.txt"));
  EXPECT_TRUE(has(p->paths, ".gitignore"));
  EXPECT_EQ(p->text.find("a/.away"), std::string::npos) << p->text;
  EXPECT_EQ(p->text.find("the prompt"), std::string::npos) << p->text;
  for (const auto& path : p->paths) EXPECT_NE(path.rfind(".away", 0), 0u) << path;
}

// Rewrite in place (same inode), as an editor writing through the file would.
void rewrite_in_place(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
}

TEST_F(GitTest, RacyCleanSameSizeRewriteInTheSameSecondIsInThePatch) {
  Clone c = clone_at(base);
  // Right after the checkout: same size, same inode, most likely the same mtime second.
  rewrite_in_place(work + "/b.txt", "BRAVO\n");
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, std::vector<std::string>{"b.txt"});
  EXPECT_NE(p->text.find("+BRAVO"), std::string::npos);
}

TEST_F(GitTest, RewriteWithTheOldMtimeRestoredIsStillInThePatch) {
  Clone c = clone_at(base);
  struct stat before {};
  ASSERT_EQ(::stat((work + "/b.txt").c_str(), &before), 0);
  ::sleep(1);  // leave the racy window: only the ctime can tell now
  rewrite_in_place(work + "/b.txt", "BRAVO\n");
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (work + "/b.txt").c_str(), times, 0), 0);
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, std::vector<std::string>{"b.txt"});
}

TEST_F(GitTest, UntrackedBinaryIsOmittedAndTrackedBinaryStaysForTheCheck) {
  Clone c = clone_at(base);
  ASSERT_TRUE(write_file(work + "/blob.bin", std::string("\0\1\2\3binary", 10), 0644));
  ASSERT_TRUE(write_file(work + "/b.txt", std::string("now\0binary", 10), 0644));
  ASSERT_TRUE(write_file(work + "/text.txt", "plain\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->omitted, std::vector<std::string>{"blob.bin"});
  EXPECT_FALSE(has(p->paths, "blob.bin"));
  EXPECT_TRUE(has(p->paths, "b.txt"));
  EXPECT_TRUE(has(p->paths, "text.txt"));
  EXPECT_NE(p->text.find("Binary files a/b.txt and b/b.txt differ"), std::string::npos);
  EXPECT_TRUE(exists(work + "/blob.bin"));
  // A second collect gives the same answer.
  auto again = make_patch(c);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->text, p->text);
  EXPECT_EQ(again->omitted, p->omitted);
}

TEST_F(GitTest, SymlinksAndNestedRepositoriesAreLeftForTheCheck) {
  Clone c = clone_at(base);
  ASSERT_EQ(::symlink("/etc/passwd", (work + "/link").c_str()), 0);
  sh("git init -q nested && cd nested && git commit -q --allow-empty -m n", work);
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NE(p->text.find("new file mode 120000"), std::string::npos) << p->text;
  EXPECT_NE(p->text.find("new file mode 160000"), std::string::npos) << p->text;
}

TEST_F(GitTest, DirectorySwappedForALinkOutsideIsALinkNotItsContentAndFifosAreSkipped) {
  Clone c = clone_at(base);
  std::string outside = tmp.path + "/outside";
  ASSERT_TRUE(make_dirs(outside));
  ASSERT_TRUE(write_file(outside + "/secret.txt", "owner secret\n", 0600));
  ASSERT_TRUE(remove_tree(work + "/dir"));
  ASSERT_EQ(::symlink(outside.c_str(), (work + "/dir").c_str()), 0);
  ASSERT_EQ(::mkfifo((work + "/pipe").c_str(), 0600), 0);  // would block a reader forever
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, (std::vector<std::string>{"dir", "dir/c.txt"}));
  EXPECT_EQ(p->text.find("owner secret"), std::string::npos);
  EXPECT_NE(p->text.find("new file mode 120000"), std::string::npos);
}

TEST_F(GitTest, NestedRepositoryWithoutACommitIsOmittedNotFatal) {
  Clone c = clone_at(base);
  sh("git init -q scratchrepo && printf 'x\\n' > scratchrepo/f", work);
  ASSERT_TRUE(write_file(work + "/a.txt", "alpha changed\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->paths, std::vector<std::string>{"a.txt"});
  EXPECT_EQ(p->omitted, std::vector<std::string>{"scratchrepo/"});
}

TEST_F(GitTest, GitattributesInTheWorkTreeDoNotChangeWhatIsCollected) {
  Clone c = clone_at(base);
  // -diff would hide the change as binary; eol=crlf would rewrite it; both are ignored.
  ASSERT_TRUE(write_file(work + "/.gitattributes", "*.txt -diff eol=crlf ident\n", 0644));
  ASSERT_TRUE(write_file(work + "/a.txt", "alpha $Id$\r\n", 0644));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NE(p->text.find("+alpha $Id$\r\n"), std::string::npos) << p->text;
  EXPECT_EQ(p->text.find("Binary"), std::string::npos);
}

}  // namespace
}  // namespace aw::test
