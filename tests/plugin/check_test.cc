// Check plugins (issue 28 item 1): a check plugin's verdict read as hostile data, failing closed
// (garbage, a crash, a timeout, a plugin not approved: each a refusal with a clear reason), and
// the shipped examples/plugins/license-check run end to end in the plugin's sandbox.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "../isolate/harness.h"
#include "base/fs.h"
#include "json_schema.h"
#include "plugin/approval.h"
#include "plugin/check.h"
#include "run_fixture.h"

namespace aw {
namespace {

nlohmann::json parse(const char* text) {
  return nlohmann::json::parse(text);
}

std::string first_reason(const std::vector<PluginRefusal>& r) {
  return r.empty() ? "(accepted)" : r[0].reason;
}

TEST(PluginCheckReply, AYesIsNoRefusalAndANoCarriesItsReasonsInert) {
  EXPECT_TRUE(check_result_refusals(parse(R"({"accepted":true})"), "lic").empty());
  EXPECT_TRUE(check_result_refusals(parse(R"({"accepted":true,"refusals":[]})"), "lic").empty());
  auto r = check_result_refusals(
      parse(R"({"accepted":false,"refusals":[{"path":"src/a.c","line":1,"reason":"no SPDX)"
            R"( header \u202e\u001b[31m"},{"reason":"whole patch"}]})"),
      "lic");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].plugin, "lic");
  EXPECT_EQ(r[0].path, "src/a.c");
  EXPECT_EQ(r[0].line, 1);
  // The plugin's words are data: no bidirectional control or terminal escape survives.
  EXPECT_EQ(r[0].reason.find("\u202e"), std::string::npos) << r[0].reason;
  EXPECT_EQ(r[0].reason.find('\x1b'), std::string::npos) << r[0].reason;
  EXPECT_EQ(r[0].reason.rfind("no SPDX header", 0), 0u) << r[0].reason;
  EXPECT_EQ(r[1].path, "");
  EXPECT_EQ(r[1].line, 0);
}

TEST(PluginCheckReply, AnythingButAClearVerdictIsOneRefusal) {
  for (const char* bad : {
           R"({})",                                              // no verdict at all
           R"({"accepted":"yes"})",                              // not a boolean
           R"({"accepted":1})",                                  //
           R"({"accepted":false})",                              // a no without a reason
           R"({"accepted":false,"refusals":[]})",                //
           R"({"accepted":true,"refusals":[{"reason":"x"}]})",   // a yes with reasons
           R"({"accepted":false,"refusals":[{"path":"a.c"}]})",  // a reason without words
           R"({"accepted":false,"refusals":[{"reason":""}]})",   //
           R"({"accepted":false,"refusals":[{"reason":"x","line":-1}]})",
           R"({"accepted":false,"refusals":"x"})",  //
           R"([true])",                             // not an object
       }) {
    auto r = check_result_refusals(parse(bad), "lic");
    ASSERT_EQ(r.size(), 1u) << bad;
    EXPECT_NE(r[0].reason.find("check plugin lic answered no valid verdict"), std::string::npos)
        << bad << ": " << r[0].reason;
    EXPECT_NE(r[0].reason.find("a check that cannot be read refuses"), std::string::npos);
  }
}

// docs/plugins/check.schema.json and check_result.schema.json say what the reader does: the
// params hold to theirs, every verdict the reader takes holds to the result's, every one it
// refuses breaks it.
TEST(PluginCheckReply, TheCallHoldsToItsPublishedSchemas) {
  auto params = test::plugin_schema("check.schema.json");
  auto result = test::plugin_schema("check_result.schema.json");
  ASSERT_TRUE(params.is_object());
  ASSERT_TRUE(result.is_object());
  auto p = check_params("u-1", "o/r", "main", {"a.c"}, "diff --git a/a.c b/a.c\n",
                        nlohmann::json::array({{{"type", "noop"}, {"message", "m"}}}));
  EXPECT_EQ(test::schema_breaks(params, p, "params"), "");
  p["token"] = "x";  // the positive control: a field the schema does not know
  EXPECT_NE(test::schema_breaks(params, p, "params"), "");
  for (const char* good :
       {R"({"accepted":true})", R"({"accepted":true,"refusals":[]})",
        R"({"accepted":false,"refusals":[{"reason":"r","path":"a","line":1}]})"}) {
    EXPECT_EQ(test::schema_breaks(result, parse(good), "result"), "") << good;
    EXPECT_TRUE(check_result_refusals(parse(good), "lic").size() <= 1) << good;
  }
  for (const char* bad :
       {R"({})", R"({"accepted":"yes"})", R"({"accepted":false})",
        R"({"accepted":false,"refusals":[]})", R"({"accepted":true,"refusals":[{"reason":"x"}]})",
        R"({"accepted":false,"refusals":[{"path":"a.c"}]})",
        R"({"accepted":false,"refusals":[{"reason":""}]})",
        R"({"accepted":false,"refusals":[{"reason":"x","line":-1}]})"}) {
    EXPECT_NE(test::schema_breaks(result, parse(bad), "result"), "") << bad;
    auto r = check_result_refusals(parse(bad), "lic");
    ASSERT_EQ(r.size(), 1u) << bad;
    EXPECT_NE(r[0].reason.find("answered no valid verdict"), std::string::npos) << bad;
  }
}

TEST(PluginCheckReply, AFloodOfReasonsIsCut) {
  nlohmann::json j = {{"accepted", false}, {"refusals", nlohmann::json::array()}};
  for (int i = 0; i < 500; ++i) j["refusals"].push_back({{"reason", "r"}});
  auto r = check_result_refusals(j, "lic");
  ASSERT_EQ(r.size(), kCheckMaxRefusals + 1);
  EXPECT_EQ(r.back().reason, "and 450 more reasons, not kept");
}

TEST(PluginCheckReply, OnlyCheckPluginsAreAsked) {
  PluginsConfig c;
  c.plugins["notify"].name = "notify";
  c.plugins["notify"].kind = PluginKind::notifier;
  c.plugins["lic"].name = "lic";
  c.plugins["lic"].kind = PluginKind::check;
  auto found = check_plugins_of(c);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->name, "lic");
}

// Real plugin processes in the sandbox, as tests/plugin/call_test.cc.
struct PluginCheckRun : plugin_test::PluginRunTest {
  void SetUp() override {
    PluginRunTest::SetUp();
    p.name = "lic";
    p.kind = PluginKind::check;
  }
  void script(const std::string& body) {
    ASSERT_TRUE(write_file(plugdir + "/check.sh", "#!/bin/sh\nread -r req\n" + body, 0755));
    p.command = {plugdir + "/check.sh"};
  }
  std::vector<PluginRefusal> run(const std::string& patch, bool approve = true) {
    if (approve) {
      auto ok = approve_plugin(p, host.plugins_dir);
      EXPECT_TRUE(ok) << ok.error().message;
    }
    nlohmann::json params = {{"unit", "u-1"},      {"repo", "o/r"},
                             {"base_ref", "main"}, {"paths", {"a.c"}},
                             {"patch", patch},     {"requests", nlohmann::json::array()}};
    return run_check_plugins({&p}, host, params);
  }
};

TEST_F(PluginCheckRun, ACrashATimeoutOrAnUnapprovedPluginRefuses) {
  script("echo 'broken' >&2\nexit 3\n");
  auto r = run("");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].reason.find("check plugin lic refused the patch because it could not check it: "
                             "plugin lic exited 3"),
            std::string::npos)
      << r[0].reason;
  p.timeout_ms = 1000;
  script("sleep 30\n");
  r = run("");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].reason.find("timed out"), std::string::npos) << r[0].reason;
  p.timeout_ms = 20000;
  script("echo '<html>'\n");
  r = run("");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].reason.find("not a JSON object"), std::string::npos) << r[0].reason;
  // Positive control: the same machinery accepts a plugin that says yes.
  script("printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"accepted\":true}}\\n'\n");
  EXPECT_TRUE(run("").empty());
  // Changed since approval: refused, the patch with it.
  script("printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"accepted\":true }}\\n'\n");
  r = run("", false);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].reason.find("it changed since you approved it"), std::string::npos) << r[0].reason;
}

TEST_F(PluginCheckRun, ThePluginIsAskedWithThePatchAsData) {
  script(
      "printf '%s\\n' \"$req\" > \"$HOME/request.json\"\n"
      "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"accepted\":true}}\\n'\n");
  EXPECT_TRUE(run("diff --git a/a.c b/a.c\n").empty());
  auto req = nlohmann::json::parse(read_or_empty(state + "/plugins/lic/data/request.json"), nullptr,
                                   false);
  ASSERT_TRUE(req.is_object());
  EXPECT_EQ(req["method"], "check");
  EXPECT_EQ(req["params"]["patch"], "diff --git a/a.c b/a.c\n");
  EXPECT_EQ(req["params"]["paths"][0], "a.c");
}

// examples/plugins/license-check, as shipped, in the sandbox.
TEST_F(PluginCheckRun, TheLicenseCheckExampleRefusesANewSourceFileWithoutSpdx) {
  if (::access("/usr/bin/python3", X_OK) != 0)
    AW_SKIP_OR_FAIL("the example needs /usr/bin/python3");
  p.command = {std::string(AW_SOURCE_DIR) + "/examples/plugins/license-check/license-check"};
  const std::string without =
      "diff --git a/src/new.c b/src/new.c\nnew file mode 100644\nindex 0000000..1111111\n"
      "--- /dev/null\n+++ b/src/new.c\n@@ -0,0 +1,2 @@\n+int main(void) {\n+  return 0; }\n";
  const std::string with =
      "diff --git a/src/ok.c b/src/ok.c\nnew file mode 100644\nindex 0000000..2222222\n"
      "--- /dev/null\n+++ b/src/ok.c\n@@ -0,0 +1,2 @@\n+// SPDX-License-Identifier: MIT\n"
      "+int ok;\n";
  const std::string changed =  // an existing file changed: not the rule's business
      "diff --git a/old.c b/old.c\nindex 3333333..4444444 100644\n--- a/old.c\n+++ b/old.c\n"
      "@@ -1 +1,2 @@\n x\n+y\n";
  const std::string doc =  // not source
      "diff --git a/NOTES.md b/NOTES.md\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.md\n"
      "@@ -0,0 +1 @@\n+notes\n";
  auto r = run(without + with + changed + doc);
  ASSERT_EQ(r.size(), 1u) << first_reason(r);
  EXPECT_EQ(r[0].plugin, "lic");
  EXPECT_EQ(r[0].path, "src/new.c");
  EXPECT_NE(r[0].reason.find("without an SPDX header"), std::string::npos) << r[0].reason;
  EXPECT_TRUE(run(with + changed + doc).empty()) << first_reason(run(with + changed + doc));
}

}  // namespace
}  // namespace aw
