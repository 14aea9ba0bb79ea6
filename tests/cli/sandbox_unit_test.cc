// A unit under the default sandbox (isolation none): what the agent sees of the owner's machine,
// and network: allowlist through the egress proxy.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../unit/unit_fixture.h"
#include "base/sha256.h"

namespace aw::test {
namespace {

class SandboxedUnit : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    if (::geteuid() != 0) {
      const char* ci = std::getenv("CI");
      if (ci && std::string(ci) == "true") FAIL() << "needs root (cgroup limits)";
      GTEST_SKIP() << "needs root (cgroup limits)";
    }
  }
};

// The agent program lives in the test's /tmp folder, which is private inside: it is lent alone,
// read-only; its neighbours, the config file and the state folder stay out of sight.
TEST_F(SandboxedUnit, AgentInTmpRunsButSeesNothingElseOfTheOwnersTmp) {
  make_repo({{"a.txt", "x\n"}});
  std::ofstream(root + "/agents/neighbour") << "owner's file\n";
  std::string out = "\"$AWAYWORK_OUTPUTS\"";
  write_config(agent_script("look", "ls " + root + "/agents > " + out + "/agents 2>&1 || true\n" +
                                        "cat " + config + " > " + out + "/config 2>&1 || true\n" +
                                        "ls " + root + "/state > " + out + "/state 2>&1 || true\n" +
                                        "echo hi 2>" + out + "/self >> $0 || true\n" +
                                        "echo t > \"$TMPDIR/t\" && cp \"$TMPDIR/t\" " + out +
                                        "/tmp\n" + "echo y > a.txt"));
  auto r = run_unit("look around");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u);
  std::string dir = r.record["run_dir"];
  EXPECT_EQ(read(dir + "/outputs/tmp"), "t\n");  // TMPDIR (in the hidden state folder) is writable
  EXPECT_EQ(read(dir + "/outputs/agents"), "look\n");
  EXPECT_EQ(read(dir + "/outputs/config").find("agents:"), std::string::npos)
      << read(dir + "/outputs/config");
  EXPECT_EQ(read(dir + "/outputs/state"), "runs\n");  // only the way to the unit's own folders
  EXPECT_NE(read(dir + "/outputs/self").find("Read-only"), std::string::npos)
      << read(dir + "/outputs/self");
}

TEST_F(SandboxedUnit, AllowlistGoesThroughTheEgressProxyWhichRefusesOtherHostsAndLogs) {
  make_repo({{"a.txt", "x\n"}});
  write_config(
      agent_script("net", R"(env | grep -i '^https*_proxy=' | sort > "$AWAYWORK_OUTPUTS/env"
curl -s -o /dev/null -w '%{http_code}' http://denied.invalid/ > "$AWAYWORK_OUTPUTS/code" || true
echo y > a.txt)"),
      "sandbox: {network: allowlist, allow: [example.com]}\n");
  auto r = run_unit("use the network");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network allowlist", 0), 0u);
  std::string dir = r.record["run_dir"];
  EXPECT_EQ(read(dir + "/outputs/env"),
            "HTTPS_PROXY=http://127.0.0.1:3128\nHTTP_PROXY=http://127.0.0.1:3128\n"
            "http_proxy=http://127.0.0.1:3128\nhttps_proxy=http://127.0.0.1:3128\n");
  EXPECT_EQ(read(dir + "/outputs/code"), "403");
  EXPECT_NE(read(dir + "/egress.log").find("\"host\":\"denied.invalid\""), std::string::npos);
}

// An MCP server run outside the unit (issue 27 item 3), reached from the agent's sandbox through
// the real `awaywork __mcp-relay`: a stand-in configured as provider: claude (the real CLI's own
// test is pipeline_agent_settings_test.cc) reads the --mcp-config file awaywork wrote, starts the
// server it names (the relay) and speaks MCP to it (initialize, tools/call) with python3. The
// server (tests/unit/mcp/probe_server.py) answers with the SHA-256 of its secret: the value reached
// it. From inside, the agent then looks for the value everywhere it can: every process's environ
// and cmdline it can read, its HOME, TMPDIR, the clone, /tmp. Nothing.
TEST_F(SandboxedUnit, AnMcpServerRunOutsideIsCalledThroughTheRelayAndItsSecretStaysOutside) {
  const std::string token = "ghp_FAKEoutsideUNITfakeOUTSIDEunit012345";
  use_test_secret_store();
  store_secret("MCP_PROBE_TOKEN", token);
  make_repo({{"a.txt", "x\n"}});
  std::string mcp_dir = root + "/mcp";
  std::filesystem::create_directories(mcp_dir);
  std::filesystem::copy_file(std::string(AW_SOURCE_DIR) + "/tests/unit/mcp/probe_server.py",
                             mcp_dir + "/probe_server.py");
  // The pattern is written in two halves, so that no command line of the probe holds the value.
  std::string half1 = token.substr(0, 12), half2 = token.substr(12);
  std::string agent = agent_script("claude-stand-in", R"(set +e
out="$AWAYWORK_OUTPUTS"
cfg=""; prev=""
for a in "$@"; do [ "$prev" = --mcp-config ] && cfg="$a"; prev="$a"; done
cp "$cfg" "$out/mcp-config.json"
env | cut -d= -f1 | sort > "$out/env-names"
python3 - "$cfg" > "$out/mcp" 2>&1 <<'PY'
import json, subprocess, sys
s = json.load(open(sys.argv[1]))["mcpServers"]["probe"]
p = subprocess.Popen([s["command"]] + s["args"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     text=True)
msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "probe", "arguments": {}}}]
out, _ = p.communicate("".join(json.dumps(m) + "\n" for m in msgs), timeout=60)
print(out)
print("relay exit", p.returncode)
PY
printf '%s%s\n' )" + half1 + " " + half2 + R"( > "$out/pattern"
: > "$out/leaks"
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do
  grep -qaFf "$out/pattern" "$f" 2>/dev/null && echo "$f" >> "$out/leaks"
done
# the pattern file itself (the run folder may lie under /tmp) is the control, not a leak
real=$(realpath "$out/pattern")
grep -rlaFf "$out/pattern" "$HOME" "$TMPDIR" /tmp . 2>/dev/null |
  grep -vxF -e "$real" -e "$out/pattern" >> "$out/leaks"
echo y > a.txt
)");
  write_config(agent, "",
               "    provider: claude\n    env: [ANTHROPIC_API_KEY]\n"
               "    mcp:\n      probe:\n        run: outside\n"
               "        command: [/usr/bin/python3, " +
                   mcp_dir + "/probe_server.py, --hidden, " + config +
                   "]\n"
                   "        read: [" +
                   mcp_dir + "]\n        secrets: [MCP_PROBE_TOKEN]\n");
  auto r = run_unit("call the probe", {},
                    {"ANTHROPIC_API_KEY=sk-ant-api03-FAKEstandinFAKEstandinFAKEstandin0123"});
  ASSERT_EQ(r.record["state"], "done") << r.out << r.err;
  std::string dir = r.record["run_dir"];
  // The CLI's config names the relay and its bridged port, and no variable or secret.
  std::string cfg = read(dir + "/outputs/mcp-config.json");
  EXPECT_NE(cfg.find("__mcp-relay"), std::string::npos) << cfg;
  EXPECT_NE(cfg.find("127.0.0.1:4190"), std::string::npos) << cfg;
  EXPECT_EQ(cfg.find("MCP_PROBE_TOKEN"), std::string::npos) << cfg;
  // tools/call went through the relay and the server had its secret (by its hash)...
  std::string mcp = read(dir + "/outputs/mcp");
  EXPECT_NE(mcp.find("\"serverInfo\""), std::string::npos) << mcp;
  EXPECT_NE(mcp.find("secret_sha256=" + sha256_hex(token)), std::string::npos) << mcp;
  EXPECT_NE(mcp.find("relay exit 0"), std::string::npos) << mcp;
  // ...and could not read awaywork's config (the owner's files stay out of its view).
  EXPECT_NE(mcp.find("hidden=denied"), std::string::npos) << mcp;
  // The agent's phase held neither the value nor even the name.
  EXPECT_EQ(read(dir + "/outputs/env-names").find("MCP_PROBE_TOKEN"), std::string::npos);
  EXPECT_EQ(read(dir + "/outputs/leaks"), "") << "the secret was readable from inside";
  // The positive control of the leak search is the pattern file itself: the probe finds it.
  EXPECT_EQ(read(dir + "/outputs/pattern"), token + "\n");
  // The record says the server ran outside; it does not list the secret as the agent's.
  std::string notes = r.record["notes"].dump();
  EXPECT_NE(notes.find("MCP server probe ran outside the unit, sandboxed: 1 session(s)"),
            std::string::npos)
      << notes;
  EXPECT_EQ(r.record["phases"][0]["secrets"].dump().find("MCP_PROBE_TOKEN"), std::string::npos)
      << r.record["phases"][0].dump();
  // The value is in no recorded byte (a tool's answer that echoed it would be redacted).
  for (const auto& p : std::filesystem::recursive_directory_iterator(dir)) {
    if (p.is_regular_file() && p.path().filename() != "pattern") {
      EXPECT_EQ(read(p.path()).find(token), std::string::npos) << p.path();
    }
  }
}

}  // namespace
}  // namespace aw::test
