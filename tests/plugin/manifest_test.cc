// A plugin's manifest (issue 28): awaywork-plugin.json read as hostile data, each mistake an error
// naming the file, the key and the fix; the shipped examples hold to
// docs/plugins/manifest.schema.json (checked by the repository's own reader, json_schema.h) and
// load; and the manifest bounds the owner's grant: a kind, a program or a permission it does not
// ask for is refused, at approval and at the call.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>

#include "base/fs.h"
#include "json_schema.h"
#include "plugin/approval.h"
#include "plugin/manifest.h"
#include "var_tmp_dir.h"

namespace aw {
namespace {

using test::schema_breaks;

const std::string kExamples = std::string(AW_SOURCE_DIR) + "/examples/plugins";

std::vector<std::string> example_folders() {
  std::vector<std::string> out;
  DIR* d = ::opendir(kExamples.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') out.push_back(kExamples + "/" + e->d_name);
  ::closedir(d);
  return out;
}

TEST(PluginManifest, TheShippedExamplesHoldToTheSchemaAndLoad) {
  auto schema = test::plugin_schema("manifest.schema.json");
  ASSERT_TRUE(schema.is_object());
  auto folders = example_folders();
  ASSERT_FALSE(folders.empty());
  for (const std::string& f : folders) {
    auto j = nlohmann::json::parse(read_or_empty(f + "/awaywork-plugin.json"), nullptr, false);
    ASSERT_TRUE(j.is_object()) << f;
    EXPECT_EQ(schema_breaks(schema, j, "manifest"), "") << f;
    auto m = load_manifest(f, "/home/tester");
    ASSERT_TRUE(m) << m.error().message;
    // The example names itself after its folder.
    EXPECT_EQ(f.substr(f.rfind('/') + 1), m->name);
  }
  // The schema check itself catches what the reader refuses (its positive control).
  auto bad = nlohmann::json::parse(
      R"({"name":"x","version":"1","kinds":["mail"],"entry":"/bin/sh","runtime":"python",)"
      R"("permissions":{"write":["/"]},"shell":true})");
  EXPECT_NE(schema_breaks(schema, bad, "manifest"), "");
  for (const char* key : {"version", "kinds", "entry", "runtime", "permissions", "shell"}) {
    auto one = nlohmann::json::parse(read_or_empty(folders[0] + "/awaywork-plugin.json"));
    one[key] = bad[key];
    EXPECT_NE(schema_breaks(schema, one, "manifest"), "") << key;
  }
}

struct ManifestTest : ::testing::Test {
  test::VarTmpDir tmp{"aw-manifest-test"};
  const std::string dir = tmp.path;
  PluginConfig p;
  void SetUp() override {
    ASSERT_FALSE(dir.empty());
    ASSERT_TRUE(make_dirs(dir + "/lic"));
    ASSERT_TRUE(write_file(dir + "/lic/run.sh", "#!/bin/sh\nexit 0\n", 0755));
    ASSERT_TRUE(write_file(dir + "/lic/data.txt", "x\n", 0644));
    p.name = "lic";
    p.kind = PluginKind::check;
    p.command = {dir + "/lic/run.sh"};
  }
  void manifest(const std::string& text) {
    ASSERT_TRUE(write_file(dir + "/lic/awaywork-plugin.json", text, 0644));
  }
  std::string error_of(const std::string& text) {
    manifest(text);
    auto m = load_manifest(dir + "/lic", "/home/tester");
    return m ? "(loaded)" : m.error().message;
  }
  static std::string good(const std::string& extra = "") {
    return R"({"name":"lic","version":"1.2.3","kinds":["check"],"entry":"run.sh","runtime":"exec")" +
           extra + "}";
  }
};

TEST_F(ManifestTest, AGoodManifestLandsInItsFields) {
  manifest(good(R"(,"permissions":{"net":["Hooks.Example.com"],"read":["~/lic.json","/etc/lic"],)"
                R"("secrets":["LIC_TOKEN"],"env":["TZ"]})"));
  auto m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->name, "lic");
  EXPECT_EQ(m->version, "1.2.3");
  EXPECT_EQ(m->kinds, std::vector<PluginKind>{PluginKind::check});
  EXPECT_EQ(m->entry, "run.sh");
  EXPECT_EQ(m->runtime, "exec");
  EXPECT_EQ(m->net, std::vector<std::string>{"hooks.example.com"});
  EXPECT_EQ(m->read, (std::vector<std::string>{"/home/tester/lic.json", "/etc/lic"}));
  EXPECT_EQ(m->secrets, std::vector<std::string>{"LIC_TOKEN"});
  EXPECT_EQ(m->env, std::vector<std::string>{"TZ"});
}

// runtime node: node reads the entry, so a script that is not executable is a good entry; the same
// file under runtime exec is refused (the positive control).
TEST_F(ManifestTest, ANodeEntryNeedNotBeExecutable) {
  ASSERT_TRUE(write_file(dir + "/lic/main.js", "process.exit(0);\n", 0644));
  manifest(
      R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"main.js","runtime":"node"})");
  auto m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->runtime, "node");
  EXPECT_EQ(m->entry, "main.js");
  EXPECT_NE(
      error_of(
          R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"main.js","runtime":"exec"})")
          .find("\"entry\": 'main.js' is not an executable file"),
      std::string::npos);
}

TEST_F(ManifestTest, EachMistakeNamesTheFileTheKeyAndTheFix) {
  const std::string file = dir + "/lic/awaywork-plugin.json: ";
  struct Case {
    std::string text, said;
  };
  for (
      const Case& c : std::vector<Case>{
          {"not json", "not a JSON object; fix: write e.g."},
          {R"({"version":"1.0.0"})", "\"name\": missing; fix:"},
          {good(R"(,"shell":true)"), "\"shell\": is not a manifest key; fix: remove it"},
          {R"({"name":"../x","version":"1.0.0"})", "\"name\":"},
          {R"({"name":"lic","version":"one"})", "\"version\": 'one' is not MAJOR.MINOR.PATCH"},
          {R"({"name":"lic","version":"1.0.0","kinds":[]})", "\"kinds\": must name at least one"},
          {R"({"name":"lic","version":"1.0.0","kinds":["mail"]})",
           "\"kinds\": 'mail' is not a kind; fix: write e.g."},
          {R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"../run.sh"})",
           "\"entry\": '../run.sh' leaves the plugin's folder"},
          {R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"data.txt"})",
           "\"entry\": 'data.txt' is not an executable file"},
          {R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"run.sh","runtime":"py"})",
           "\"runtime\": 'py' is not a runtime; fix: write \"runtime\": \"exec\" or \"node\""},
          {R"({"name":"lic","version":"1.0.0","kinds":["check"],"entry":"nope.js","runtime":"node"})",
           "\"entry\": 'nope.js' is not a file in"},
          {good(R"(,"permissions":{"write":["srv"]})"),
           "\"permissions.write\": 'srv' is not an absolute path"},
          {good(R"(,"permissions":{"write":["/"]})"),
           "\"permissions.write\": '/' would make all of / or the owner's home writable"},
          {good(R"(,"permissions":{"write":["~"]})"), "\"permissions.write\": '~' is not an"},
          {good(R"(,"permissions":{"write":["/home"]})"),
           "\"permissions.write\": '/home' would make all of / or the owner's home writable"},
          {good(R"(,"limits":{"timeout":"2h"})"),
           "\"limits.timeout\": '2h' is not a duration from 1s to 10m"},
          {good(R"(,"limits":{"timeout":10})"), "\"limits.timeout\": must be a string"},
          {good(R"(,"limits":{"memory":"1K"})"),
           "\"limits.memory\": '1K' is not a size from 16M to 16G"},
          {good(R"(,"limits":{"processes":0})"),
           "\"limits.processes\": must be a whole number from 1 to 4096"},
          {good(R"(,"limits":{"cpu":1})"), "\"limits.cpu\": is not a manifest key"},
          {good(R"(,"limits":[])"), "\"limits\": must be an object"},
          {good(R"(,"permissions":{"net":["http://x.example/"]})"), "\"permissions.net\":"},
          {good(R"(,"permissions":{"read":["etc/x"]})"),
           "\"permissions.read\": 'etc/x' is not an absolute path"},
          {good(R"(,"permissions":{"secrets":["HOME"]})"), "\"permissions.secrets\":"},
          {good(R"(,"permissions":{"net":"x.example"})"),
           "\"permissions.net\": must be a list of strings; fix:"},
          {good(R"(,"permissions":{"sudo":true})"), "\"permissions.sudo\": is not a manifest key"},
      }) {
    std::string e = error_of(c.text);
    EXPECT_EQ(e.rfind(file, 0), 0u) << c.text << "\n" << e;
    EXPECT_NE(e.find(c.said), std::string::npos) << c.text << "\n" << e;
  }
  EXPECT_EQ(error_of(good()), "(loaded)");  // the positive control
}

TEST_F(ManifestTest, TheManifestBoundsTheOwnersGrant) {
  manifest(good(R"(,"permissions":{"net":["hooks.example.com"],"env":["TZ"]})"));
  p.net = {"hooks.example.com"};
  p.env = {"TZ"};
  EXPECT_TRUE(check_manifest(p, "/home/tester"));
  auto say = [&] {
    auto ok = check_manifest(p, "/home/tester");
    return ok ? std::string("(granted)") : ok.error().message;
  };
  p.net.push_back("evil.example");
  EXPECT_NE(say().find("plugin lic: plugins.lic.net grants evil.example, and its manifest " + dir +
                       "/lic/awaywork-plugin.json does not ask for it; fix: remove it from "
                       "plugins.lic.net"),
            std::string::npos)
      << say();
  p.net.pop_back();
  p.secrets = {"LIC_TOKEN"};
  EXPECT_NE(say().find("plugins.lic.secrets grants LIC_TOKEN"), std::string::npos) << say();
  p.secrets.clear();
  p.kind = PluginKind::notifier;
  EXPECT_NE(say().find("plugins.lic.kind is notifier, and its manifest"), std::string::npos)
      << say();
  EXPECT_NE(say().find("fix: write kind: check"), std::string::npos) << say();
  p.kind = PluginKind::check;
  ASSERT_TRUE(write_file(dir + "/lic/other.sh", "#!/bin/sh\n", 0755));
  p.command = {dir + "/lic/other.sh"};
  EXPECT_NE(say().find("names the entry run.sh; fix: write command: [" + dir + "/lic/run.sh]"),
            std::string::npos)
      << say();
  p.command = {dir + "/lic/run.sh"};
  EXPECT_EQ(say(), "(granted)");
  // No manifest: nothing to bound (the config alone declares the plugin).
  ASSERT_EQ(::unlink((dir + "/lic/awaywork-plugin.json").c_str()), 0);
  p.net = {"anything.example"};
  EXPECT_EQ(say(), "(granted)");
}

// Item 2: the manifest declares what one call needs; the config caps it. Each limit is the lower
// of the two, whichever is lower (clamped, never refused), and list shows what a call applies.
TEST_F(ManifestTest, TheManifestsLimitsAreCappedByTheConfigAndTheLowerApplies) {
  manifest(good(R"(,"limits":{"timeout":"10s","memory":"64M","processes":8})"));
  auto m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->timeout_ms, std::optional<int64_t>(10000));
  EXPECT_EQ(m->memory_bytes, std::optional<uint64_t>(64ull << 20));
  EXPECT_EQ(m->processes, std::optional<int>(8));
  // The config's defaults (30s, 256M, 32) are above: the manifest's lower ask applies.
  PluginConfig run = bounded_limits(p, *m);
  EXPECT_EQ(run.timeout_ms, 10000);
  EXPECT_EQ(run.memory_bytes, 64ull << 20);
  EXPECT_EQ(run.processes, 8);
  // The config lower than the manifest: the config's cap holds.
  p.timeout_ms = 5000;
  p.memory_bytes = 32ull << 20;
  p.processes = 4;
  run = bounded_limits(p, *m);
  EXPECT_EQ(run.timeout_ms, 5000);
  EXPECT_EQ(run.memory_bytes, 32ull << 20);
  EXPECT_EQ(run.processes, 4);
  // A manifest asking for more than the config gives is clamped to the config's.
  manifest(good(R"(,"limits":{"timeout":"5m","memory":"2G","processes":4096})"));
  m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  p.timeout_ms = PluginConfig{}.timeout_ms;  // the config's defaults again
  p.memory_bytes = PluginConfig{}.memory_bytes;
  p.processes = PluginConfig{}.processes;
  run = bounded_limits(p, *m);
  EXPECT_EQ(run.timeout_ms, 30000);
  EXPECT_EQ(run.memory_bytes, 256ull << 20);
  EXPECT_EQ(run.processes, 32);
  // No limits in the manifest: the config's alone (the positive control).
  manifest(good());
  m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  p.timeout_ms = 12000;
  EXPECT_EQ(bounded_limits(p, *m).timeout_ms, 12000);
  // list shows the limits a call applies.
  manifest(good(R"(,"limits":{"timeout":"3s"})"));
  PluginsConfig c;
  c.plugins["lic"] = p;
  auto st = plugin_statuses(c, dir + "/state/plugins");
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].permissions["timeout_ms"], 3000) << st[0].permissions.dump();
}

// Item 3: write: is a permission like the others: the manifest asks, the config grants it or
// less.
TEST_F(ManifestTest, AWriteFolderIsGrantedOnlyWhenTheManifestAsksForIt) {
  manifest(good(R"(,"permissions":{"write":["~/notes/","/srv/lic"]})"));
  auto m = load_manifest(dir + "/lic", "/home/tester");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->write, (std::vector<std::string>{"/home/tester/notes", "/srv/lic"}));
  p.write = {"/srv/lic"};
  EXPECT_TRUE(check_grant(p, *m));
  p.write = {"/srv/other"};
  auto ok = check_grant(p, *m);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("plugins.lic.write grants /srv/other, and its manifest"),
            std::string::npos)
      << ok.error().message;
}

TEST_F(ManifestTest, ApprovalRefusesAGrantBeyondTheManifestAndListSaysWhy) {
  manifest(good());
  p.net = {"evil.example"};
  auto a = approve_plugin(p, dir + "/state/plugins");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().message.find("plugins.lic.net grants evil.example"), std::string::npos)
      << a.error().message;
  PluginsConfig c;
  c.plugins["lic"] = p;
  auto st = plugin_statuses(c, dir + "/state/plugins");
  ASSERT_EQ(st.size(), 1u);
  EXPECT_NE(st[0].error.find("does not ask for it"), std::string::npos) << st[0].error;
  p.net.clear();
  EXPECT_TRUE(approve_plugin(p, dir + "/state/plugins"));
}

}  // namespace
}  // namespace aw
