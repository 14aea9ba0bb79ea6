// The rules of DESIGN.md section 5 that hold for the whole room.
#include <dirent.h>

#include <fstream>
#include <set>
#include <sstream>

#include "git_fixture.h"

namespace aw::test {
namespace {

// An agent plants every way it knows to make the host's git run its code.
TEST_F(GitTest, NothingTheAgentPlantedInTheCloneRunsOnCollectOrPublish) {
  Clone c = clone_at(base);
  std::string hook = marker_script("hook");
  std::string fsmon = marker_script("fsmonitor");
  std::string ext = marker_script("external-diff");
  std::string clean = marker_script("filter-clean");
  std::string textconv = marker_script("textconv");
  std::string hooks_dir = tmp.path + "/agent-hooks";
  ASSERT_TRUE(make_dirs(hooks_dir));
  ASSERT_TRUE(make_dirs(work + "/.git/hooks"));
  for (std::string h : {"pre-commit", "post-checkout", "post-index-change", "pre-push",
                        "reference-transaction", "post-commit"}) {
    sh("cp " + sq(hook) + " " + sq(hooks_dir + "/" + h));
    sh("cp " + sq(hook) + " " + sq(work + "/.git/hooks/" + h));
  }
  ASSERT_TRUE(write_file(work + "/.git/config",
                         c.saved_config + "[core]\n\thooksPath = " + hooks_dir +
                             "\n\tfsmonitor = " + fsmon + "\n[diff]\n\texternal = " + ext +
                             "\n[filter \"x\"]\n\tclean = " + clean + "\n\tsmudge = " + clean +
                             "\n\trequired = true\n[diff \"t\"]\n\ttextconv = " + textconv + "\n"));
  ASSERT_TRUE(write_file(work + "/.gitattributes", "* filter=x diff=t\n", 0644));
  ASSERT_TRUE(write_file(work + "/a.txt", "agent\n", 0644));

  // Control: a plain git on a copy of this clone does run the planted programs.
  sh("cp -a " + sq(work) + " " + sq(tmp.path + "/control"));
  sh_capture("git add -A && git diff HEAD && git commit -q -m x", tmp.path + "/control");
  ASSERT_TRUE(exists(marker)) << "the planted programs should run under a plain git";
  ASSERT_EQ(::unlink(marker.c_str()), 0);

  auto early = make_patch(c);  // before any repair: the clone's .git is not read at all
  ASSERT_TRUE(early) << early.error().message;
  std::vector<std::string> notes;
  ASSERT_TRUE(verify_and_restore(c, notes));
  auto p = make_patch(c);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->text, early->text);
  EXPECT_NE(p->text.find("+agent"), std::string::npos);
  EXPECT_NE(p->text.find(".gitattributes"), std::string::npos);
  auto id = publish_branch(src, base, p->text, "awaywork/hostile", Identity{}, "m", scratch);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(sh("git show awaywork/hostile:a.txt", src_dir), "agent");
  EXPECT_FALSE(exists(marker)) << slurp(marker);
  EXPECT_FALSE(exists(work + "/.git/hooks/pre-commit"));
}

// The string literals of a C++ source, quotes included (escapes kept as written).
std::vector<std::string> string_literals(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\'' && i + 2 < text.size()) {  // skip character literals like '"'
      i += text[i + 1] == '\\' ? 3 : 2;
      continue;
    }
    if (text[i] != '"') continue;
    size_t j = i + 1;
    while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
    out.push_back(text.substr(i, j - i + 1));
    i = j;
  }
  return out;
}

std::vector<std::string> room_sources() {
  std::vector<std::string> out;
  std::string dir = std::string(AW_SOURCE_DIR) + "/src/git";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 3 && (n.substr(n.size() - 3) == ".cc" || n.substr(n.size() - 2) == ".h"))
      out.push_back(dir + "/" + n);
  }
  ::closedir(d);
  return out;
}

// The library has no code that could destroy work or overwrite a ref: none of these appear as
// a string literal (a git argument) anywhere in src/git.
TEST(GitRules, SourceHasNoDestructiveGitArguments) {
  auto files = room_sources();
  ASSERT_GE(files.size(), 5u);
  const std::vector<std::string> forbidden = {
      "\"reset\"",    "\"clean\"",   "\"--hard\"",   "\"--force\"",  "\"-f\"",
      "\"-D\"",       "\"-d\"",      "\"--delete\"", "\"--mirror\"", "\"--prune\"",
      "\"checkout\"", "\"restore\"", "\"stash\"",    "\"-B\"",       "\"--force-with-lease\""};
  int seen_git_args = 0;  // the scanner does see git arguments
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    auto literals = string_literals(text);
    for (const auto& lit : literals)
      if (lit == "\"push\"" || lit == "\"add\"") ++seen_git_args;
    // The mirror (mirror.cc) is awaywork's own cache of a remote: never the owner's, never pushed
    // from. Its fetch must follow a remote that force-pushed or deleted a branch, so it alone may
    // name --prune and forced fetch refspecs; it may never name push.
    bool mirror = f.size() > 10 && f.substr(f.size() - 10) == "/mirror.cc";
    // A fork's pull request head (issue 26) is fetched the same way, one ref named by its number
    // ("+refs/pull/" N "/head:refs/pull/N/head"): the mirror is awaywork's own cache, refreshed
    // from the forge, and a fork's author may rewrite the branch.
    const std::set<std::string> mirror_fetch = {"\"--prune\"", "\"+refs/heads/*:refs/heads/*\"",
                                                "\"+refs/tags/*:refs/tags/*\"", "\"+refs/pull/\""};
    for (const auto& lit : literals) {
      if (mirror) {
        EXPECT_NE(lit, "\"push\"") << f;
      }
      if (mirror && mirror_fetch.count(lit)) continue;
      for (const auto& bad : forbidden) EXPECT_NE(lit, bad) << f;
      // One push updates an existing ref: a pull request's follow-up commit (issue 26,
      // fast_forward.cc). It is git's compare-and-swap with the value the unit started from
      // ("--force-with-lease=" REF ":" START, START the new commit's only parent, no '+'): the
      // server writes only a fast-forward from START, so no history can be lost. Only there, only
      // with an explicit expected value (a bare lease trusts whatever was fetched last).
      bool lease = f.ends_with("/fast_forward.cc") && lit == "\"--force-with-lease=\"";
      if (lease) continue;
      EXPECT_EQ(lit.find("--force"), std::string::npos) << f << ": " << lit;
      EXPECT_EQ(lit.find("reset --hard"), std::string::npos) << f << ": " << lit;
      EXPECT_FALSE(lit.size() > 2 && lit[1] == '+') << f << ": forced refspec " << lit;
    }
  }
  EXPECT_EQ(seen_git_args, 2);  // push (gitx::run_push: a new ref, a follow-up), add
}

TEST(GitRules, EveryInvocationIsHardened) {
  // git itself lists the config it runs with and where each value came from.
  TempDir t;
  auto r = git(GitCall{.git_dir = t.path,
                       .work_tree = "",
                       .index_file = "",
                       .object_dir = "",
                       .args = {"config", "--list", "--show-scope"},
                       .stdin_data = ""});
  ASSERT_TRUE(r);
  for (std::string want :
       {"command\tcore.hookspath=/dev/null", "command\tcore.fsmonitor=false",
        "command\tdiff.external=", "command\tcore.sshcommand=/bin/false",
        "command\tprotocol.ext.allow=never", "command\tcore.attributesfile=/dev/null",
        "command\tcore.askpass=/bin/false"})
    EXPECT_NE(r->out.find(want), std::string::npos) << want << "\n" << r->out;
  EXPECT_EQ(r->out.find("global\t"), std::string::npos) << r->out;
  EXPECT_EQ(r->out.find("system\t"), std::string::npos) << r->out;
}

}  // namespace
}  // namespace aw::test
