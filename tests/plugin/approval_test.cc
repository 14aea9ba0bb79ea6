// The owner's approval of a plugin by hash (issue 28 item 3): approving records its code and
// permissions owner-only; a changed byte, an added file, a changed mode or a widened permission
// makes it "changed" with what changed and the command to approve again; approving again makes it
// current. No process runs here (call_test holds call_plugin to the refusal).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/fs.h"
#include "plugin/approval.h"
#include "plugin/disable.h"

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
