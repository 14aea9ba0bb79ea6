// A unit's notifier plugins (issue 28): told the outcome as data after the unit ends, never able
// to change it; a failed call is a note, redacted of the unit's secrets; with plugins off none
// runs and the record says so.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../plugin/json_schema.h"
#include "../plugin/var_tmp_dir.h"
#include "base/fs.h"
#include "plugin/approval.h"
#include "plugin/disable.h"
#include "unit/notify.h"

namespace aw {
namespace {

using test::plugin_schema;
using test::schema_breaks;

struct NotifyTest : ::testing::Test {
  test::VarTmpDir tmp{"aw-notify-test"};
  const std::string dir = tmp.path;
  Config cfg;
  UnitRecord u;
  void SetUp() override {
    ASSERT_FALSE(dir.empty());
    ASSERT_TRUE(make_dirs(dir + "/plugin"));
    cfg.state_dir = dir + "/state";
    cfg.plugins.run = true;
    PluginConfig p;
    p.name = "notify";
    p.command = {dir + "/plugin/notify.sh"};
    p.timeout_ms = 20000;
    p.memory_bytes = 64ull << 20;
    cfg.plugins.plugins["notify"] = p;
    u.id = "20261206-030000-fix-it-1a2b";
    u.repo = "web";
    u.state = UnitState::done;
    u.verdict = "accepted";
    u.pull_request = "https://github.example/o/r/pull/7";
    u.issue = 7;
    u.issue_title = "Fix it \u202e";
  }
  // Writes the notifier and approves it as it is now (the owner's `awaywork plugin approve`).
  void plugin(const std::string& body) {
    ASSERT_TRUE(write_file(dir + "/plugin/notify.sh", "#!/bin/sh\nread -r req\n" + body, 0755));
    auto ok = approve_plugin(cfg.plugins.plugins["notify"], dir + "/state/plugins");
    ASSERT_TRUE(ok) << ok.error().message;
  }
  std::string data() const { return dir + "/state/plugins/notify/data"; }
  static bool root() { return ::geteuid() == 0; }
};

TEST_F(NotifyTest, TheParamsAreTheUnitsOutcome) {
  auto j = unit_ended_params(u, "a reason");
  EXPECT_EQ(j["unit"], u.id);
  EXPECT_EQ(j["repo"], "web");
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["reason"], "a reason");
  EXPECT_EQ(j["verdict"], "accepted");
  EXPECT_EQ(j["pull_request"], u.pull_request);
  EXPECT_EQ(j["issue"], 7);
  EXPECT_EQ(j["issue_title"], u.issue_title);
}

// docs/plugins/*.schema.json is what the plugins are given: every field, its type, nothing else.
TEST_F(NotifyTest, TheParamsHoldToTheirPublishedSchemas) {
  auto started = plugin_schema("unit_started.schema.json");
  auto ended = plugin_schema("unit_ended.schema.json");
  ASSERT_TRUE(started.is_object());
  ASSERT_TRUE(ended.is_object());
  EXPECT_EQ(schema_breaks(started, unit_started_params(u), "params"), "");
  EXPECT_EQ(schema_breaks(ended, unit_ended_params(u, ""), "params"), "");
  for (UnitState s : {UnitState::failed, UnitState::refused, UnitState::timed_out}) {
    u.state = s;
    EXPECT_EQ(schema_breaks(ended, unit_ended_params(u, "why"), "params"), "") << to_string(s);
  }
  // The check itself catches a field the schema does not know (its positive control).
  auto extra = unit_ended_params(u, "");
  extra["token"] = "x";
  EXPECT_NE(schema_breaks(ended, extra, "params"), "");
  auto reply = plugin_schema("reply.schema.json");
  ASSERT_TRUE(reply.is_object());
  EXPECT_EQ(
      schema_breaks(reply, nlohmann::json::parse(R"({"jsonrpc":"2.0","id":1,"result":{}})"), "r"),
      "");
}

TEST_F(NotifyTest, WithPluginsOffNoneRunsAndTheRecordSaysSo) {
  cfg.plugins.run = false;
  plugin("touch \"$HOME/ran\"\n");
  notify_unit_ended(cfg, u, "", {});
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("1 notifier plugin(s) not run: plugins are off"), std::string::npos)
      << u.notes[0];
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
}

TEST_F(NotifyTest, ADisabledNotifierDoesNotRunAndTheEndSaysSo) {
  plugin("touch \"$HOME/ran\"\nprintf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  ASSERT_TRUE(set_plugin_disabled(dir + "/state/plugins", "notify", true));
  notify_unit_started(cfg, u, {});
  EXPECT_TRUE(u.notes.empty());  // the end says it once
  notify_unit_ended(cfg, u, "", {});
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("notifier plugin notify not run: you disabled it (awaywork plugin "
                            "enable notify runs it again)"),
            std::string::npos)
      << u.notes[0];
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
}

TEST_F(NotifyTest, TheNotifierGetsTheOutcomeAsOneRequest) {
  if (!root()) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  plugin(
      "printf '%s\\n' \"$req\" > \"$HOME/request.json\"\n"
      "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  notify_unit_ended(cfg, u, "", {});
  EXPECT_TRUE(u.notes.empty()) << u.notes[0];
  auto req = nlohmann::json::parse(read_or_empty(data() + "/request.json"), nullptr, false);
  ASSERT_TRUE(req.is_object()) << read_or_empty(data() + "/request.json");
  EXPECT_EQ(req["method"], "unit_ended");
  EXPECT_EQ(req["params"]["unit"], u.id);
  EXPECT_EQ(req["params"]["state"], "done");
  EXPECT_EQ(req["params"]["pull_request"], u.pull_request);
}

TEST_F(NotifyTest, TheStartIsToldTooAndSaysNothingWhenPluginsAreOff) {
  auto j = unit_started_params(u);
  EXPECT_EQ(j["unit"], u.id);
  EXPECT_EQ(j["issue_title"], u.issue_title);
  EXPECT_FALSE(j.contains("state"));
  cfg.plugins.run = false;
  plugin("touch \"$HOME/ran\"\n");
  notify_unit_started(cfg, u, {});
  EXPECT_TRUE(u.notes.empty());  // the end says it once
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
  if (!root()) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  cfg.plugins.run = true;
  plugin(
      "printf '%s\\n' \"$req\" > \"$HOME/request.json\"\n"
      "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  notify_unit_started(cfg, u, {});
  EXPECT_TRUE(u.notes.empty()) << u.notes[0];
  auto req = nlohmann::json::parse(read_or_empty(data() + "/request.json"), nullptr, false);
  ASSERT_TRUE(req.is_object());
  EXPECT_EQ(req["method"], "unit_started");
  EXPECT_EQ(req["params"]["unit"], u.id);
}

TEST_F(NotifyTest, AFailingNotifierIsANoteRedactedOfTheUnitsSecrets) {
  if (!root()) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  const std::string secret = "correct-horse-battery-staple-4711";
  plugin("echo \"broke while holding " + secret + "\" >&2\nexit 3\n");
  notify_unit_ended(cfg, u, "", {secret});
  EXPECT_EQ(u.state, UnitState::done);  // the outcome stands
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find(
                "notifier plugin notify failed at unit_ended (the unit's outcome stands): plugin "
                "notify exited 3"),
            std::string::npos)
      << u.notes[0];
  EXPECT_EQ(u.notes[0].find(secret), std::string::npos) << u.notes[0];
  EXPECT_NE(u.notes[0].find("broke while holding"), std::string::npos) << u.notes[0];
}

TEST_F(NotifyTest, AHangingOrGarbledNotifierIsANoteToo) {
  if (!root()) GTEST_SKIP() << "needs root for the plugin's cgroup limits";
  cfg.plugins.plugins["notify"].timeout_ms = 1000;
  plugin("sleep 30\n");
  notify_unit_ended(cfg, u, "", {});
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("timed out"), std::string::npos) << u.notes[0];
  u.notes.clear();
  plugin("echo '<html>not json</html>'\n");
  notify_unit_ended(cfg, u, "", {});
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("not a JSON object"), std::string::npos) << u.notes[0];
}

TEST_F(NotifyTest, ANotifierChangedSinceApprovalIsANoteNamingTheCommand) {
  plugin("touch \"$HOME/ran\"\nprintf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\\n'\n");
  ASSERT_TRUE(write_file(dir + "/plugin/notify.sh", "#!/bin/sh\ntouch \"$HOME/ran\"\n", 0755));
  notify_unit_ended(cfg, u, "", {});
  EXPECT_EQ(u.state, UnitState::done);  // the outcome stands
  ASSERT_EQ(u.notes.size(), 1u);
  EXPECT_NE(u.notes[0].find("notifier plugin notify failed at unit_ended (the unit's outcome "
                            "stands): plugin notify did not run: it changed since you approved it "
                            "(file notify.sh changed)"),
            std::string::npos)
      << u.notes[0];
  EXPECT_NE(u.notes[0].find("awaywork plugin approve notify"), std::string::npos) << u.notes[0];
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
}

}  // namespace
}  // namespace aw
