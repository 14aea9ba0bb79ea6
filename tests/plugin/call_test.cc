// A plugin call with real processes: a probe plugin (a shell script) reports from inside what it
// could reach, each refusal beside a positive control that shows the probe would see it. The
// owner's home and secrets, awaywork's state and config, the owner's environment, the host's
// network and undeclared hosts stay out of reach; a call past its time or memory is killed, nothing
// of it survives, and with the owner's switch off nothing runs at all.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

#include "base/fs.h"
#include "call_fixture.h"
#include "plugin/approval.h"
#include "plugin/call.h"
#include "plugin/disable.h"
#include "plugin/manifest.h"
#include "plugin/node_runtime.h"

namespace aw {
namespace {

using namespace std::chrono_literals;
using plugin_test::PluginCallTest;
using plugin_test::process_with;

TEST_F(PluginCallTest, TheOwnersHomeStateAndConfigAreOutOfReachItsDeclaredFilesAreNot) {
  p.read = {shared + "/ok.txt"};
  script("grep -q CANARY " + owner + "/.ssh/id_canary 2>/dev/null && seen=\"$seen ssh\"\n" +
         "grep -q CANARY " + owner + "/notes.txt 2>/dev/null && seen=\"$seen home\"\n" +
         "grep -q CANARY " + state + "/awaywork.db 2>/dev/null && seen=\"$seen database\"\n" +
         "grep -q CANARY " + config + "/config.yml 2>/dev/null && seen=\"$seen config\"\n" +
         "ls -A /root 2>/dev/null | grep -q . && seen=\"$seen root-home\"\n"
         "grep -q READ-OK " +
         shared + "/ok.txt && seen=\"$seen read\"\n" +
         "echo \"$req\" > \"$HOME/request.json\" && seen=\"$seen data\"\n"
         "touch " +
         shared + "/ok.txt 2>/dev/null && seen=\"$seen wrote-read\"\n" + "touch " + plugdir +
         "/new 2>/dev/null && seen=\"$seen wrote-own-folder\"\n" +
         "touch /etc/aw-plugin 2>/dev/null && seen=\"$seen wrote-etc\"\n");
  EXPECT_EQ(seen(), " read data");
  // The request reached the plugin as data, in its own folder.
  std::string req = read_or_empty(data() + "/request.json");
  EXPECT_NE(req.find("\"method\":\"probe\""), std::string::npos) << req;
  EXPECT_NE(req.find("\"unit\":\"u-1\""), std::string::npos) << req;
  struct stat st {};
  EXPECT_NE(::stat((plugdir + "/new").c_str(), &st), 0);
}

TEST_F(PluginCallTest, NothingOfTheEnvironmentIsInheritedButTheDeclaredNamesAndSecrets) {
  ::setenv("AW_PLUGIN_OWNER_CANARY", "owner-env-canary", 1);
  ::setenv("AW_PLUGIN_DECLARED", "declared-ok", 1);
  p.env = {"AW_PLUGIN_DECLARED"};
  p.secrets = {"NOTIFY_TOKEN"};
  host.secret = [](const std::string& name) -> Result<std::string> {
    if (name == "NOTIFY_TOKEN") return std::string("xoxb-0000000000-fake-plugin-token");
    if (name == "OTHER_TOKEN") return std::string("ghp_fakeOtherTokenNotDeclared000000000");
    return fail("no secret {}", name);
  };
  script(
      "env | grep -q owner-env-canary && seen=\"$seen owner-env\"\n"
      "env | grep -q ghp_fake && seen=\"$seen undeclared-secret\"\n"
      "[ \"$AW_PLUGIN_DECLARED\" = declared-ok ] && seen=\"$seen declared\"\n"
      "[ \"$NOTIFY_TOKEN\" = xoxb-0000000000-fake-plugin-token ] && seen=\"$seen secret\"\n"
      "seen=\"$seen names:$(env | cut -d= -f1 | sort | tr '\\n' ,)\"\n");
  std::string s = seen();
  ::unsetenv("AW_PLUGIN_OWNER_CANARY");
  ::unsetenv("AW_PLUGIN_DECLARED");
  ASSERT_EQ(s.rfind(" declared secret names:", 0), 0u) << s;
  std::set<std::string> allowed = {
      "PATH",         "HOME", "TMPDIR", "LANG", "AWAYWORK_PLUGIN", "AW_PLUGIN_DECLARED",
      "NOTIFY_TOKEN", "PWD",  "SHLVL",  "_",    "OLDPWD"};
  std::stringstream names(s.substr(s.find(':') + 1));
  for (std::string n; std::getline(names, n, ',');)
    if (!n.empty()) {
      EXPECT_TRUE(allowed.count(n)) << n << " reached the plugin: " << s;
    }
}

TEST_F(PluginCallTest, AMissingDeclaredSecretRefusesTheCallBeforeAnythingRuns) {
  p.secrets = {"NOTIFY_TOKEN"};
  host.secret = [](const std::string& name) -> Result<std::string> {
    return fail("no secret {} in the store", name);
  };
  script("touch \"$HOME/ran\"");
  auto r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("declares the secret NOTIFY_TOKEN"), std::string::npos)
      << r.error().message;
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
}

TEST_F(PluginCallTest, WithoutDeclaredHostsThereIsNoNetworkNotEvenTheHostsLoopback) {
  test::Upstream up;
  std::string url = "http://127.0.0.1:" + std::to_string(up.port) + "/";
  script("curl -s -m 3 " + url + " | grep -q hello && seen=\"$seen host-loopback\"\n" +
         "[ -n \"$HTTP_PROXY$http_proxy\" ] && seen=\"$seen proxy\"\n"
         "seen=\"$seen links:$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' \\n')\"\n");
  EXPECT_EQ(seen(), " links:lo");
  EXPECT_TRUE(up.requests().empty());
  // Positive control: the same request from the host reaches the server.
  std::FILE* f = ::popen(("curl -s -m 3 --noproxy '*' " + url).c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string got;
  test::drain(::fileno(f), got);
  ::pclose(f);
  EXPECT_EQ(got, "hello");
}

TEST_F(PluginCallTest, ADeclaredHostIsReachedThroughTheProxyAndNothingElse) {
  test::Upstream up;
  p.net = {"allowed.test"};
  host.test_static_hosts = {{"allowed.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}};
  std::string port = std::to_string(up.port);
  script("curl -s -m 5 http://allowed.test:" + port +
         "/hook | grep -q hello && seen=\"$seen declared\"\n" +
         "seen=\"$seen other=$(curl -s -o /dev/null -m 5 -w '%{http_code}' http://other.test:" +
         port + "/)\"\n" + "curl -s -m 3 --noproxy '*' http://127.0.0.1:" + port +
         "/ | grep -q hello && seen=\"$seen direct\"\n");
  EXPECT_EQ(seen(), " declared other=403");
  auto got = up.requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NE(got[0].find("/hook"), std::string::npos) << got[0];
  EXPECT_NE(read_or_empty(state + "/plugins/probe/egress.log").find("other.test"),
            std::string::npos);
}

TEST_F(PluginCallTest, ACallPastItsTimeIsKilledAndNothingOfItSurvives) {
  p.timeout_ms = 1000;
  std::string marker = "aw-plugin-leftover-" + std::to_string(::getpid());
  script("sh -c 'sleep 300; :' " + marker + " &\necho started > \"$HOME/started\"\nsleep 60\n");
  auto start = std::chrono::steady_clock::now();
  auto r = call();
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe timed out after 1 s and was killed"),
            std::string::npos)
      << r.error().message;
  EXPECT_LT(took, 15s);
  EXPECT_EQ(read_or_empty(data() + "/started"), "started\n");  // it did run
  EXPECT_FALSE(process_with(marker));
}

// Item 2: the manifest's limits are the call's when lower than the config's: a 1 s timeout in
// awaywork-plugin.json stops a call the config would give 20 s.
TEST_F(PluginCallTest, AManifestsLowerTimeoutIsTheCallsLimit) {
  script("echo started > \"$HOME/started\"\nsleep 8\n");
  ASSERT_TRUE(write_file(plugdir + "/awaywork-plugin.json",
                         R"({"name":"probe","version":"1.0.0","kinds":["notifier"],)"
                         R"("entry":"plugin.sh","runtime":"exec","limits":{"timeout":"1s"}})",
                         0644));
  auto start = std::chrono::steady_clock::now();
  auto r = call();
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe timed out after 1 s and was killed"),
            std::string::npos)
      << r.error().message;
  EXPECT_LT(took, 6s);
  EXPECT_EQ(read_or_empty(data() + "/started"), "started\n");  // it did run
}

// Item 3: a declared write: folder is writable from inside, the folder beside it is not, and the
// data folder stays writable; without the declaration the same write is refused (the control).
TEST_F(PluginCallTest, ADeclaredWriteFolderIsWritableAndBesideItIsNot) {
  ASSERT_TRUE(make_dirs(shared + "/out"));
  std::string body = "echo w > " + shared + "/out/w 2>/dev/null && seen=\"$seen declared\"\n" +
                     "echo b > " + shared + "/beside 2>/dev/null && seen=\"$seen beside\"\n" +
                     "mkdir " + shared + "/out2 2>/dev/null && seen=\"$seen sibling\"\n" +
                     "touch " + state + "/awaywork.db 2>/dev/null && seen=\"$seen database\"\n" +
                     "touch \"$HOME/d\" && seen=\"$seen data\"\n";
  script(body);
  EXPECT_EQ(seen(), " data");  // nothing declared: the folder is not writable
  struct stat st {};
  EXPECT_NE(::stat((shared + "/out/w").c_str(), &st), 0);
  p.write = {shared + "/out"};
  script(body);
  EXPECT_EQ(seen(), " declared data");
  EXPECT_EQ(read_or_empty(shared + "/out/w"), "w\n");
  EXPECT_NE(::stat((shared + "/beside").c_str(), &st), 0);
  EXPECT_NE(::stat((shared + "/out2").c_str(), &st), 0);
  EXPECT_EQ(read_or_empty(state + "/awaywork.db"), "DATABASE-CANARY");
}

TEST_F(PluginCallTest, AWriteFolderInAwayworksStateOrMissingRefusesTheCallBeforeItRuns) {
  script("touch \"$HOME/ran\"");
  struct stat st {};
  for (const std::string& path : {state, owner, shared + "/none"}) {
    p.write = {path};
    auto r = call_plugin(p, host, "probe", {{"unit", "u-1"}});
    ASSERT_FALSE(r) << path;
    EXPECT_NE(r.error().message.find("plugins.probe.write: " + path), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("fix:"), std::string::npos) << r.error().message;
    EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0) << path;
  }
}

TEST_F(PluginCallTest, WhatAFinishedCallLeftRunningDiesWithIt) {
  std::string marker = "aw-plugin-orphan-" + std::to_string(::getpid());
  script("sh -c 'sleep 300; :' " + marker + " &\nseen=\"$seen left\"\n");
  auto r = call();
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->result["seen"], " left");
  EXPECT_TRUE(r->phase.verified_empty);
  EXPECT_FALSE(process_with(marker));
}

TEST_F(PluginCallTest, MemoryPastItsLimitIsRefused) {
  // A 128 MiB string (about 200 MB resident): past a 32 MiB limit, within 512 MiB (the positive
  // control). mawk's sprintf is capped at 8 KiB, so the string doubles instead.
  script(
      "awk 'BEGIN { s = \"x\"; for (i = 0; i < 27; i++) s = s s; print length(s) }' "
      ">/dev/null 2>&1 && seen=\"$seen big\"\n");
  p.memory_bytes = 512ull << 20;
  EXPECT_EQ(seen(), " big");
  p.memory_bytes = 32ull << 20;
  // The allocation is killed; where the kernel ends the whole group, the call is an error.
  std::string s = seen();
  EXPECT_TRUE(s.empty() || s.find("killed") != std::string::npos) << s;
  EXPECT_EQ(s.find("big"), std::string::npos) << s;
}

TEST_F(PluginCallTest, AForkBombStopsAtItsProcessLimit) {
  p.processes = 16;
  // The bomb runs in a subshell (a shell that cannot fork gives up); the count uses builtins only,
  // since every slot may be taken when it runs.
  script(
      "( i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i+1)); done ) 2>/dev/null\n"
      "n=0; for d in /proc/[0-9]*; do n=$((n+1)); done\n"
      "seen=\"$seen procs:$n\"\n");
  std::string s = seen();
  ASSERT_EQ(s.rfind(" procs:", 0), 0u) << s;
  int n = std::atoi(s.c_str() + 7);
  EXPECT_LE(n, 16) << s;
  EXPECT_GE(n, 8) << s;  // the bomb did fork: the limit, not the loop, stopped it
}

TEST_F(PluginCallTest, CrashesGarbageAndFloodsAreClearErrors) {
  script("echo 'it broke \x1b[31mred' >&2\nexit 3\n");
  auto r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe exited 3; it printed on stderr: it broke"),
            std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().message.find('\x1b'), std::string::npos);

  ASSERT_TRUE(write_file(plugdir + "/plugin.sh", "#!/bin/sh\necho this is not json\n", 0755));
  r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a JSON object"), std::string::npos) << r.error().message;

  ASSERT_TRUE(write_file(plugdir + "/plugin.sh", "#!/bin/sh\nexec yes flood\n", 0755));
  r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("printed more than"), std::string::npos) << r.error().message;
}

TEST_F(PluginCallTest, WithTheOwnersSwitchOffNothingRuns) {
  host.run = false;
  script("touch \"$HOME/ran\"");
  auto r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugins are off on this machine (plugins: {run: false})"),
            std::string::npos)
      << r.error().message;
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
}

// `awaywork plugin disable NAME`: an approved plugin the owner disabled never starts; enabled, it
// runs again (the positive control).
TEST_F(PluginCallTest, ADisabledPluginNeverRuns) {
  script("touch \"$HOME/ran\"; seen=ran");
  ASSERT_TRUE(approve_plugin(p, host.plugins_dir));
  ASSERT_TRUE(set_plugin_disabled(host.plugins_dir, "probe", true));
  auto r = call_plugin(p, host, "probe", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe did not run: you disabled it (awaywork plugin "
                                   "disable probe); run awaywork plugin enable probe"),
            std::string::npos)
      << r.error().message;
  struct stat st {};
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
  ASSERT_TRUE(set_plugin_disabled(host.plugins_dir, "probe", false));
  EXPECT_EQ(seen(), "ran");
  EXPECT_EQ(::stat((data() + "/ran").c_str(), &st), 0);
}

TEST_F(PluginCallTest, ThePluginRunsOnlyAsApproved) {
  script("touch \"$HOME/ran\"; seen=ran");
  struct stat st {};
  // Never approved: refused before anything of it runs.
  auto r = call_plugin(p, host, "probe", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe did not run: it is not approved"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
  // Approved: it runs.
  ASSERT_TRUE(approve_plugin(p, host.plugins_dir));
  r = call_plugin(p, host, "probe", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->result["seen"], "ran");
  ASSERT_EQ(::unlink((data() + "/ran").c_str()), 0);
  // One byte of its code changed: refused with what changed and the command, nothing runs.
  std::string code = read_or_empty(plugdir + "/plugin.sh");
  code.back() = ' ';
  ASSERT_TRUE(write_file(plugdir + "/plugin.sh", code + "\n", 0755));
  r = call_plugin(p, host, "probe", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("plugin probe did not run: it changed since you approved it "
                                   "(file plugin.sh changed); review the change, then run awaywork "
                                   "plugin approve probe"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(::stat((data() + "/ran").c_str(), &st), 0);
  // A widened permission is a change too.
  ASSERT_TRUE(approve_plugin(p, host.plugins_dir));
  p.read = {shared + "/ok.txt"};
  r = call_plugin(p, host, "probe", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("read: was [], now"), std::string::npos) << r.error().message;
  // Approved again: it runs.
  ASSERT_TRUE(approve_plugin(p, host.plugins_dir));
  r = call_plugin(p, host, "probe", {});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(::stat((data() + "/ran").c_str(), &st), 0);
}

TEST_F(PluginCallTest, AProgramStraightInAHomeIsNotLentWithItsWholeFolder) {
  ASSERT_TRUE(write_file(owner + "/plugin.sh", "#!/bin/sh\nexit 0\n", 0755));
  p.command = {owner + "/plugin.sh"};
  auto r = call();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("would lend the plugin all of it"), std::string::npos)
      << r.error().message;
}

// runtime node: inside the OS sandbox, Node's permission model narrows what the script may touch to
// its folder, its read: paths, its data folder and /tmp, and starts no process. The positive
// control: the same script run as exec (its #! line) reads the system's /etc and starts a process.
TEST_F(PluginCallTest, ANodePluginRunsUnderNodesPermissionModelInsideTheSandbox) {
  auto node = find_plugin_node("probe");
  if (!node) AW_SKIP_OR_FAIL(node.error().message);
  p.memory_bytes = 256ull << 20;  // node's heap
  p.read = {shared + "/ok.txt"};
  std::string js =
      "const fs = require('fs');\n"
      "let req = '';\n"
      "process.stdin.on('data', (d) => (req += d)).on('end', () => {\n"
      "  let seen = '';\n"
      "  const probe = (word, f) => { try { f(); seen += ' ' + word; } catch (e) {} };\n"
      "  probe('read', () => fs.readFileSync('" +
      shared +
      "/ok.txt'));\n"
      "  probe('etc', () => fs.readFileSync('/etc/os-release'));\n"
      "  probe('data', () => fs.writeFileSync(process.env.HOME + '/request.json', req));\n"
      "  probe('tmp', () => fs.writeFileSync('/tmp/probe.txt', 'x'));\n"
      "  probe('child', () => require('child_process').execFileSync('/bin/true'));\n"
      "  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: 1, result: {seen}}) + '\\n');\n"
      "});\n";
  auto manifest = [&](const std::string& runtime) {
    return R"({"name":"probe","version":"1.0.0","kinds":["notifier"],"entry":"plugin.js",)"
           R"("runtime":")" +
           runtime + R"(","permissions":{"read":[")" + shared + R"(/ok.txt"]}})";
  };
  ASSERT_TRUE(write_file(plugdir + "/plugin.js", js, 0644));
  ASSERT_TRUE(write_file(plugdir + "/" + kManifestName, manifest("node"), 0644));
  p.command = {plugdir + "/plugin.js"};
  EXPECT_EQ(seen(), " read data tmp");
  EXPECT_NE(read_or_empty(data() + "/request.json").find("\"method\":\"probe\""),
            std::string::npos);
  // The same script as exec, through its #! line: only the OS sandbox bounds it.
  ASSERT_TRUE(write_file(plugdir + "/plugin.js", "#!" + node->path + "\n" + js, 0755));
  ASSERT_TRUE(write_file(plugdir + "/" + kManifestName, manifest("exec"), 0644));
  EXPECT_EQ(seen(), " read etc data tmp child");
}

TEST(PluginNodeRuntime, VersionsAndTheirPermissionFlag) {
  auto v = parse_node_version("v20.20.2\n");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(v->major, 20);
  EXPECT_EQ(v->minor, 20);
  EXPECT_EQ(v->patch, 2);
  EXPECT_STREQ(node_permission_flag(*v), "--experimental-permission");
  EXPECT_STREQ(node_permission_flag({22, 12, 0}), "--experimental-permission");
  EXPECT_STREQ(node_permission_flag({22, 13, 0}), "--permission");
  EXPECT_STREQ(node_permission_flag({23, 4, 0}), "--experimental-permission");
  EXPECT_STREQ(node_permission_flag({23, 5, 0}), "--permission");
  EXPECT_STREQ(node_permission_flag({24, 0, 0}), "--permission");
  for (const char* bad : {"", "20.1.0", "v20", "v20.1", "v20.1.0-pre", "vx.y.z", "v1.2.3 extra"})
    EXPECT_FALSE(parse_node_version(bad)) << bad;
}

}  // namespace
}  // namespace aw
