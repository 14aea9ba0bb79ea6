// The clean side's tree built without an index of the whole base (src/git/sparse_apply.cc,
// objects.cc): the same tree git's read-tree + apply --cached + write-tree makes, and the same
// refusals (paths outside, .git, a file where a folder is, paths off the checked list).
#include "git/git_internal.h"
#include "git_fixture.h"

namespace aw::test {
namespace {

class SparseApplyTest : public ::testing::Test {
 protected:
  TempDir tmp;
  std::string repo, base;
  int n = 0;

  // A base with folders, names that sort around a folder's ('a', 'a.b', 'a-b', 'a/'), an
  // executable, a link and a deep path.
  void SetUp() override {
    repo = tmp.path + "/repo";
    sh("git init -q -b main " + sq(repo));
    sh("mkdir -p a/b/c d e && echo 1 > a/b/c/deep.txt && echo 2 > a.b && echo 3 > a-b && "
       "echo 4 > a/x.txt && echo 5 > d/only.txt && echo 6 > e/one.txt && echo 7 > e/two.txt && "
       "echo 8 > top.txt && printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh && "
       "ln -s top.txt link && git add -A && git commit -qm base",
       repo);
    base = sh("git rev-parse HEAD", repo);
  }

  // A patch made by git from the base to what `change` (a shell command) does to a copy.
  std::string patch_of(const std::string& change) {
    std::string w = tmp.path + "/w" + std::to_string(++n);
    sh("git clone -q " + sq(repo) + " " + sq(w));
    sh(change + " && git add -A", w);
    return sh_capture("git diff --cached --no-renames --binary " + base, w).out;
  }

  // git's own tree for the patch: the whole base read into an index.
  std::string full_index_tree(const std::string& patch) {
    std::string idx = tmp.path + "/full-index" + std::to_string(++n);
    std::string env = "GIT_INDEX_FILE=" + sq(idx) + " ";
    sh(env + "git read-tree " + base, repo);
    std::string p = tmp.path + "/p" + std::to_string(n);
    EXPECT_TRUE(write_file(p, patch));
    sh(env + "git apply --cached " + sq(p), repo);
    return sh(env + "git write-tree", repo);
  }

  // A scratch git dir borrowing the repository's objects, as publish makes it.
  GitCall scratch() {
    std::string dir = tmp.path + "/scratch" + std::to_string(++n);
    EXPECT_TRUE(gitx::make_borrowing_git_dir(dir, repo + "/.git/objects", "sha1"));
    GitCall g = gitx::at(dir, {});
    g.index_file = dir + "/index";
    return g;
  }

  Result<gitx::AppliedTree> sparse(const std::string& patch) {
    GitCall g = scratch();
    AW_TRY(auto paths, gitx::patch_paths(g, patch));
    return gitx::apply_sparse(g, base, patch, paths);
  }
};

TEST_F(SparseApplyTest, MakesTheTreeGitsFullIndexMakesForEachKindOfChange) {
  const char* changes[] = {
      "echo changed > a/b/c/deep.txt",                    // deep modify
      "mkdir -p n/m && echo new > n/m/new.txt",           // new folders
      "echo s > a.c && echo t > a/y.txt && echo u > a0",  // names sorting around 'a/'
      "git rm -q d/only.txt",                             // a folder left empty goes
      "git rm -q e/one.txt e/two.txt && echo f > e",      // a folder becomes a file
      "git rm -q top.txt link && mkdir top.txt && echo g > top.txt/in",           // a file a folder
      "chmod -x run.sh && echo y >> run.sh && printf x > tool && chmod +x tool",  // modes
      "ln -s a/x.txt newlink && git rm -q a-b",                                   // a link
  };
  for (const char* change : changes) {
    std::string patch = patch_of(change);
    ASSERT_FALSE(patch.empty()) << change;
    auto got = sparse(patch);
    ASSERT_TRUE(got) << change << ": " << got.error().message;
    EXPECT_EQ(got->tree, full_index_tree(patch)) << change;
    // git reads the written trees back as it would its own
    EXPECT_EQ(sh_capture("git cat-file -e " + got->tree + " && git ls-tree -r " + got->tree +
                             " >/dev/null",
                         repo)
                  .exit_code,
              0);
  }
}

TEST_F(SparseApplyTest, EveryFileRemovedGivesTheEmptyTree) {
  std::string patch = patch_of("git rm -q -r .");
  auto got = sparse(patch);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->tree, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
}

TEST_F(SparseApplyTest, PathsOffTheCheckedListAreRefused) {
  std::string patch = patch_of("echo x > top.txt && mkdir -p z && echo y > z/new.txt");
  auto r = gitx::apply_sparse(scratch(), base, patch, {"top.txt"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("z/new.txt"), std::string::npos) << r.error().message;
  // in a folder that is read for a checked path too
  patch = patch_of("echo x > top.txt && echo y > top2.txt");
  r = gitx::apply_sparse(scratch(), base, patch, {"top.txt"});
  ASSERT_FALSE(r);
}

TEST_F(SparseApplyTest, AFileUnderAFileOrAFileOverAFolderIsRefused) {
  // Hand-written patches git makes no other way: new files where the base has a file or folder.
  std::string under =
      "diff --git a/top.txt/x b/top.txt/x\nnew file mode 100644\n--- /dev/null\n+++ "
      "b/top.txt/x\n@@ -0,0 +1 @@\n+x\n";
  auto r = gitx::apply_sparse(scratch(), base, under, {"top.txt/x"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is a file"), std::string::npos) << r.error().message;
  std::string over =
      "diff --git a/e b/e\nnew file mode 100644\n--- /dev/null\n+++ b/e\n@@ -0,0 +1 @@\n+x\n";
  r = gitx::apply_sparse(scratch(), base, over, {"e"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is a folder"), std::string::npos) << r.error().message;
  // and git itself still refuses what it refuses: a patch that does not apply
  std::string stale =
      "diff --git a/top.txt b/top.txt\n--- a/top.txt\n+++ b/top.txt\n@@ -1 +1 @@\n-nope\n+x\n";
  EXPECT_FALSE(gitx::apply_sparse(scratch(), base, stale, {"top.txt"}));
}

TEST_F(SparseApplyTest, HostilePathsAreRefusedBeforeAnyTreeIsWritten) {
  for (std::string p :
       {".git/config", "a/.git/hooks/x", ".GIT/config", "a/.git. /x", "../out", "a/../../out",
        "/etc/passwd", "a//b", "a/./b", "a\\b", "a/\x01", "x/", ""}) {
    EXPECT_FALSE(gitx::check_tree_path(p)) << p;
    std::string patch = "diff --git a/" + p + " b/" + p +
                        "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p +
                        "\n@@ -0,0 +1 @@\n+x\n";
    EXPECT_FALSE(gitx::apply_sparse(scratch(), base, patch, {p})) << p;
  }
  for (std::string p : {".gitattributes", "a/.github/x", "a..b/c", "x.git", "caf\xc3\xa9.txt"})
    EXPECT_TRUE(gitx::check_tree_path(p)) << p;
  // git refuses .git paths even where the checked list names them only by a folder
  std::string patch =
      "diff --git a/a/.git/x b/a/.git/x\nnew file mode 100644\n--- /dev/null\n+++ "
      "b/a/.git/x\n@@ -0,0 +1 @@\n+x\n";
  EXPECT_FALSE(gitx::apply_sparse(scratch(), base, patch, {"top.txt"}));
}

TEST_F(SparseApplyTest, TheIndexItWritesIsOneGitReadsAndItReadsGitsBack) {
  std::string blob = sh("git rev-parse HEAD:top.txt", repo);
  std::string link = sh("git rev-parse HEAD:link", repo);
  std::vector<gitx::IndexEntry> entries = {{"z/last", 0100755, blob},
                                           {"a.b", 0120000, link},
                                           {std::string(5000, 'l'), 0100644, blob},
                                           {"a/b", 0100644, blob}};
  auto bytes = gitx::index_bytes(entries, "sha1");
  ASSERT_TRUE(bytes) << bytes.error().message;
  std::string idx = tmp.path + "/our-index";
  ASSERT_TRUE(write_file(idx, *bytes));
  std::string listed = sh("GIT_INDEX_FILE=" + sq(idx) + " git ls-files -s", repo);
  EXPECT_EQ(listed, "120000 " + link + " 0\ta.b\n100644 " + blob + " 0\ta/b\n100644 " + blob +
                        " 0\t" + std::string(5000, 'l') + "\n100755 " + blob + " 0\tz/last");
  // git rewrites it (as apply does); the entries read back are git's
  sh("GIT_INDEX_FILE=" + sq(idx) + " git update-index --add --cacheinfo 100644," + blob +
         ",new && GIT_INDEX_FILE=" + sq(idx) + " git update-index --force-remove a/b",
     repo);
  auto back = gitx::parse_index(slurp(idx), "sha1");
  ASSERT_TRUE(back) << back.error().message;
  std::vector<std::string> paths;
  for (const auto& e : *back) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"a.b", std::string(5000, 'l'), "new", "z/last"}));
  EXPECT_EQ((*back)[0].mode, 0120000u);
  EXPECT_EQ((*back)[0].id, link);
  std::string bad = slurp(idx);
  bad[20] ^= 1;
  EXPECT_FALSE(gitx::parse_index(bad, "sha1"));  // the checksum
  EXPECT_FALSE(gitx::index_bytes({{"x", 0100644, blob}, {"x", 0100644, blob}}, "sha1"));
}

TEST_F(SparseApplyTest, TreesSortAndHashAsGitsMktree) {
  std::string blob = sh("git rev-parse HEAD:top.txt", repo);
  std::string sub = sh("git rev-parse HEAD:a", repo);
  std::vector<gitx::TreeEntry> entries = {{"100644", "a.b", blob}, {"40000", "a", sub},
                                          {"100644", "a-b", blob}, {"100755", "a0", blob},
                                          {"40000", "a.", sub},    {"120000", "Z", blob}};
  auto content = gitx::tree_content(entries);
  ASSERT_TRUE(content) << content.error().message;
  std::string id = gitx::object_id("tree", *content, "sha1");
  std::string listing;
  for (const auto& e : entries)
    listing +=
        (e.mode == "40000" ? "040000 tree " : e.mode + " blob ") + e.id + "\t" + e.name + "\n";
  std::string f = tmp.path + "/listing";
  ASSERT_TRUE(write_file(f, listing));
  EXPECT_EQ(sh("git mktree --missing < " + sq(f), repo), id);
  auto parsed = gitx::parse_tree(*content, "sha1");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), entries.size());
  EXPECT_EQ((*parsed)[0].name, "Z");
  EXPECT_FALSE(gitx::parse_tree(content->substr(0, content->size() - 3), "sha1"));
}

TEST(RefName, AgreesWithGitCheckRefFormat) {
  for (std::string b :
       {"main",   "feature/x",  "a.b",      "v1.0",        "-x",   "a..b", "a/.b", ".a",
        "a.lock", "a/b.lock/c", "a.lock.x", "a b",         "a~1",  "a^",   "a:b",  "a?",
        "a*",     "a[",         "a\\b",     "a@{1}",       "@",    "a@b",  "a//b", "a/",
        "a.",     "a\x01",      "a\x7f",    "caf\xc3\xa9", "x/y/z"}) {
    std::string ref = "refs/heads/" + b;
    bool git_says = sh_capture("git check-ref-format " + sq(ref)).exit_code == 0;
    EXPECT_EQ(gitx::valid_ref_name(ref), git_says) << ref;
  }
  EXPECT_FALSE(gitx::valid_ref_name("main"));  // one level
  EXPECT_FALSE(gitx::valid_ref_name("@"));
}

}  // namespace
}  // namespace aw::test
