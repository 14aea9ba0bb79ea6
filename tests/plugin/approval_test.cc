// The owner's approval of a plugin by hash (issue 28 item 3): approving records its code and
// permissions owner-only; a changed byte, an added file, a changed mode or a widened permission
// makes it "changed" with what changed and the command to approve again; approving again makes it
// current. No process runs here (call_test holds call_plugin to the refusal). `awaywork plugin
// approve` takes a folder as well as a name; a write: folder is checked on this machine.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "plugin/approval.h"
#include "plugin/disable.h"
#include "plugin/write_paths.h"

namespace aw {
namespace {

struct ApprovalTest : ::testing::Test {
  std::string dir, plugins;
  PluginConfig p;
  void SetUp() override {
    char tmpl[] = "/var/tmp/aw-approval-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir = tmpl;
    plugins = dir + "/state/plugins";
    ASSERT_TRUE(make_dirs(dir + "/notify/lib"));
    ASSERT_TRUE(write_file(dir + "/notify/notify.sh", "#!/bin/sh\nexit 0\n", 0755));
    ASSERT_TRUE(write_file(dir + "/notify/lib/post.sh", "curl -s \"$1\"\n", 0644));
    p.name = "notify";
    p.command = {dir + "/notify/notify.sh"};
    p.net = {"hooks.example.com"};
  }
  void TearDown() override { (void)remove_tree(dir); }
  Approval state() {
    auto a = plugin_approval(p, plugins);
    EXPECT_TRUE(a) << (a ? "" : a.error().message);
    return a ? *a : Approval{};
  }
  static std::string joined(const Approval& a) {
    std::string s;
    for (const auto& c : a.changes) s += c + "\n";
    return s;
  }
};

TEST_F(ApprovalTest, ANeverApprovedPluginIsRefusedWithTheCommand) {
  Approval a = state();
  EXPECT_EQ(a.state, ApprovalState::unapproved);
  std::string why = approval_refusal(p, a);
  EXPECT_NE(why.find("plugin notify did not run: it is not approved"), std::string::npos) << why;
  EXPECT_NE(why.find("awaywork plugin approve notify"), std::string::npos) << why;
}

TEST_F(ApprovalTest, ApprovedIsCurrentAndTheRecordIsTheOwnersOnly) {
  auto print = approve_plugin(p, plugins);
  ASSERT_TRUE(print) << print.error().message;
  EXPECT_EQ(print->sha256.size(), 64u);
  EXPECT_TRUE(print->files.contains("notify.sh"));
  EXPECT_TRUE(print->files.contains("lib/post.sh"));
  EXPECT_EQ(state().state, ApprovalState::current);
  struct stat st {};
  ASSERT_EQ(::stat((plugins + "/notify/approval.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((plugins + "/notify").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(ApprovalTest, AChangedByteIsRefusedNamingTheFileUntilApprovedAgain) {
  ASSERT_TRUE(approve_plugin(p, plugins));
  ASSERT_TRUE(write_file(dir + "/notify/lib/post.sh", "curl -s \"$2\"\n", 0644));
  Approval a = state();
  EXPECT_EQ(a.state, ApprovalState::changed);
  EXPECT_EQ(joined(a), "file lib/post.sh changed\n");
  std::string why = approval_refusal(p, a);
  EXPECT_NE(why.find("plugin notify did not run: it changed since you approved it (file "
                     "lib/post.sh changed)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("awaywork plugin approve notify"), std::string::npos) << why;
  ASSERT_TRUE(approve_plugin(p, plugins));
  EXPECT_EQ(state().state, ApprovalState::current);
}

TEST_F(ApprovalTest, AnAddedFileAChangedModeAndAWidenedPermissionAreChanges) {
  ASSERT_TRUE(approve_plugin(p, plugins));
  ASSERT_TRUE(write_file(dir + "/notify/extra.js", "steal()\n", 0644));
  ASSERT_EQ(::chmod((dir + "/notify/lib/post.sh").c_str(), 0755), 0);
  p.net.push_back("evil.example");
  Approval a = state();
  EXPECT_EQ(a.state, ApprovalState::changed);
  std::string all = joined(a);
  EXPECT_NE(all.find("file extra.js added"), std::string::npos) << all;
  EXPECT_NE(all.find("file lib/post.sh changed"), std::string::npos) << all;
  EXPECT_NE(
      all.find("net: was [\"hooks.example.com\"], now [\"hooks.example.com\",\"evil.example\"]"),
      std::string::npos)
      << all;
  ASSERT_TRUE(::unlink((dir + "/notify/extra.js").c_str()) == 0);
  ASSERT_TRUE(approve_plugin(p, plugins));
  ASSERT_TRUE(::unlink((dir + "/notify/lib/post.sh").c_str()) == 0);
  EXPECT_EQ(joined(state()), "file lib/post.sh removed\n");
}

TEST_F(ApprovalTest, ADamagedRecordIsAnErrorNeverApproved) {
  ASSERT_TRUE(approve_plugin(p, plugins));
  ASSERT_TRUE(write_file(plugins + "/notify/approval.json", "{\"sha256\": 1}", 0600));
  auto a = plugin_approval(p, plugins);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("is damaged"), std::string::npos) << a.error().message;
}

TEST_F(ApprovalTest, AMissingProgramIsAnError) {
  p.command = {dir + "/nowhere/notify"};
  auto a = plugin_approval(p, plugins);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("does not exist"), std::string::npos) << a.error().message;
}

// Item 1: `awaywork plugin approve PATH`: the folder of a declared plugin (or its program) names
// it; the name still does; a folder declared under two names is both.
TEST_F(ApprovalTest, APluginIsNamedByItsFolderOrItsProgramAsByItsName) {
  PluginsConfig c;
  c.plugins["notify"] = p;
  ASSERT_TRUE(make_dirs(dir + "/other"));
  ASSERT_TRUE(write_file(dir + "/other/run.sh", "#!/bin/sh\n", 0755));
  PluginConfig other = p;
  other.name = "other";
  other.command = {dir + "/other/run.sh"};
  c.plugins["other"] = other;
  auto names = [&](const std::string& target) {
    auto t = approval_targets(c, target);
    std::string out;
    if (!t) return "error: " + t.error().message;
    for (const PluginConfig* q : *t) out += (out.empty() ? "" : " ") + q->name;
    return out;
  };
  EXPECT_EQ(names("notify"), "notify");
  EXPECT_EQ(names(dir + "/notify"), "notify");
  EXPECT_EQ(names(dir + "/notify/"), "notify");
  EXPECT_EQ(names(dir + "/notify/notify.sh"), "notify");
  EXPECT_EQ(names(dir + "/other/../notify"), "notify");
  EXPECT_EQ(names(dir + "/other"), "other");
  // The same folder declared twice (a notifier and a check of one plugin): both.
  PluginConfig twin = p;
  twin.name = "notify-check";
  twin.kind = PluginKind::check;
  c.plugins["notify-check"] = twin;
  EXPECT_EQ(names(dir + "/notify"), "notify notify-check");
  // Approving by folder records what approving by name records.
  auto t = approval_targets(c, dir + "/other");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_TRUE(approve_plugin(*(*t)[0], plugins));
  auto a = plugin_approval(other, plugins);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->state, ApprovalState::current);
}

TEST_F(ApprovalTest, AnUnknownOrUnreadablePathIsAClearErrorNamingItAndTheFix) {
  PluginsConfig c;
  c.plugins["notify"] = p;
  auto missing = approval_targets(c, dir + "/nowhere");
  ASSERT_FALSE(missing);
  const std::string& m = missing.error().message;
  EXPECT_EQ(m.rfind(dir + "/nowhere is neither a plugin declared under plugins: nor a folder", 0),
            0u)
      << m;
  EXPECT_NE(m.find("fix: give the plugin's name or its folder"), std::string::npos) << m;
  EXPECT_NE(m.find("the config declares notify in " + dir + "/notify"), std::string::npos) << m;
  // A bare word that is no declared name and no folder here: a mistyped name, most likely.
  auto typo = approval_targets(c, "notfy");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().message.rfind("no plugin notfy is declared in the config's plugins: "
                                       "section (it declares notify); fix: give a declared name, "
                                       "or the plugin's folder",
                                       0),
            0u)
      << typo.error().message;
  // A folder that exists but is no declared plugin's.
  ASSERT_TRUE(make_dirs(dir + "/stray"));
  auto stray = approval_targets(c, dir + "/stray");
  ASSERT_FALSE(stray);
  EXPECT_NE(stray.error().message.find(dir + "/stray is the folder of no plugin declared under "
                                             "plugins:"),
            std::string::npos)
      << stray.error().message;
  EXPECT_NE(stray.error().message.find("fix: declare it first"), std::string::npos)
      << stray.error().message;
  // The plugin's lib folder is not its folder: only the folder of its program names it.
  EXPECT_FALSE(approval_targets(c, dir + "/notify/lib"));
  // An unreadable folder (root reads everything: only as another user).
  if (::geteuid() != 0) {
    ASSERT_TRUE(make_dirs(dir + "/locked/inner"));
    ASSERT_EQ(::chmod((dir + "/locked").c_str(), 0), 0);
    auto locked = approval_targets(c, dir + "/locked/inner");
    ASSERT_EQ(::chmod((dir + "/locked").c_str(), 0700), 0);
    ASSERT_FALSE(locked);
    EXPECT_NE(locked.error().message.find(dir + "/locked/inner cannot be read"), std::string::npos)
        << locked.error().message;
    EXPECT_NE(locked.error().message.find("fix:"), std::string::npos) << locked.error().message;
  }
}

// Item 3: a write: folder must exist, be a folder, and be none of /, the home itself, awaywork's
// state folder, database or config, nor the plugin's own code; each refusal names it and the fix.
TEST_F(ApprovalTest, AWriteFolderMustExistAndBeNoneOfTheOwnersOrAwayworksOwn) {
  SandboxPaths base;
  base.owner_home = dir + "/home";
  base.state_dir = dir + "/state";
  base.config_dir = dir + "/config";
  for (const auto& d :
       {base.owner_home + "/notes", base.state_dir, base.config_dir, dir + "/shared/out"})
    ASSERT_TRUE(make_dirs(d));
  ASSERT_TRUE(write_file(base.state_dir + "/awaywork.db", "DB", 0600));
  ASSERT_TRUE(write_file(dir + "/shared/file.txt", "x", 0644));
  ASSERT_EQ(::symlink((base.state_dir).c_str(), (dir + "/shared/state-link").c_str()), 0);
  auto why = [&](const std::string& path) {
    p.write = {path};
    auto w = plugin_write_paths(p, base);
    return w ? std::string("(lent)") : w.error().message;
  };
  // The positive controls: a folder of its own, inside the home or not.
  p.write = {dir + "/shared/out", base.owner_home + "/notes/"};
  auto ok = plugin_write_paths(p, base);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, (std::vector<std::string>{dir + "/shared/out", base.owner_home + "/notes"}));
  struct Case {
    std::string path, said;
  };
  for (const Case& c : std::vector<Case>{
           {dir + "/shared/none", dir + "/shared/none does not exist; fix: create it (mkdir -p"},
           {dir + "/shared/file.txt", "is not a folder; fix:"},
           {"/", "would let the plugin write all of / or your home"},
           {base.owner_home, "would let the plugin write all of / or your home"},
           {dir, "would let the plugin write all of / or your home"},
           {base.state_dir, "is awaywork's state folder"},
           {base.state_dir + "/plugins", ""},  // made below: inside the state folder
           {base.config_dir, "is awaywork's config folder"},
           {dir + "/shared/state-link", "(really " + base.state_dir + ") is awaywork's state"},
           {dir + "/notify", "is the plugin's own folder"},
           {dir + "/notify/lib", "is inside the plugin's own folder"},
       }) {
    if (c.said.empty()) {
      ASSERT_TRUE(make_dirs(c.path));
      EXPECT_NE(why(c.path).find("is inside awaywork's state folder"), std::string::npos)
          << why(c.path);
      continue;
    }
    std::string e = why(c.path);
    EXPECT_EQ(e.rfind("plugin notify: plugins.notify.write: ", 0), 0u) << c.path << "\n" << e;
    EXPECT_NE(e.find(c.said), std::string::npos) << c.path << "\n" << e;
    EXPECT_NE(e.find("fix:"), std::string::npos) << c.path << "\n" << e;
  }
  // A folder holding the state folder (here the test's own, which holds it): refused as well.
  ASSERT_TRUE(make_dirs(dir + "/outer"));
  base.state_dir = dir + "/outer/state";
  ASSERT_TRUE(make_dirs(base.state_dir));
  EXPECT_NE(why(dir + "/outer").find("holds awaywork's state folder"), std::string::npos)
      << why(dir + "/outer");
}

// Approval refuses a write: folder no call could lend, and a declared write: is part of what was
// approved (a folder added later is a change).
TEST_F(ApprovalTest, AWriteFolderIsApprovedWithThePluginAndCheckedFirst) {
  ASSERT_TRUE(approve_plugin(p, plugins));
  ASSERT_TRUE(make_dirs(dir + "/out"));
  p.write = {dir + "/out"};
  Approval a = state();
  EXPECT_EQ(a.state, ApprovalState::changed);
  EXPECT_NE(joined(a).find("write: was unset, now [\"" + dir + "/out\"]"), std::string::npos)
      << joined(a);
  ASSERT_TRUE(approve_plugin(p, plugins));
  EXPECT_EQ(state().state, ApprovalState::current);
  p.write = {dir + "/state"};  // plugins_dir's parent: awaywork's state folder
  auto refused = approve_plugin(p, plugins);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("is awaywork's state folder"), std::string::npos)
      << refused.error().message;
}

// `awaywork plugin disable NAME` (issue 28): the owner's switch for one plugin, kept in the owner's
// state folder; enable undoes it; list shows it; an undeclared name is an Error naming the
// declared ones.
TEST_F(ApprovalTest, DisablingIsRecordedOwnerOnlyListedAndUndoneByEnable) {
  auto off = plugin_disabled(plugins, "notify");
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_FALSE(*off);
  PluginsConfig declared;
  declared.plugins["notify"] = p;
  ASSERT_TRUE(set_declared_disabled(declared, plugins, "notify", true));
  EXPECT_TRUE(*plugin_disabled(plugins, "notify"));
  struct stat st {};
  ASSERT_EQ(::stat((plugins + "/notify/disabled").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((plugins + "/notify").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  auto statuses = plugin_statuses(declared, plugins);
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_TRUE(statuses[0].disabled);
  std::vector<std::string> left_out;
  EXPECT_TRUE(enabled_plugins({&p}, plugins, &left_out).empty());
  EXPECT_EQ(left_out, std::vector<std::string>{"notify"});

  ASSERT_TRUE(set_declared_disabled(declared, plugins, "notify", false));
  EXPECT_FALSE(*plugin_disabled(plugins, "notify"));
  EXPECT_FALSE(plugin_statuses(declared, plugins)[0].disabled);
  EXPECT_EQ(enabled_plugins({&p}, plugins, nullptr).size(), 1u);
  EXPECT_TRUE(set_declared_disabled(declared, plugins, "notify", false));  // twice is fine

  auto unknown = set_declared_disabled(declared, plugins, "notfy", true);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no plugin notfy is declared"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("(it declares notify)"), std::string::npos)
      << unknown.error().message;
}

}  // namespace
}  // namespace aw
