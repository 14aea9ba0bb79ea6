// An MCP server with `run: outside` (issue 27 item 3) under isolation user with the OS sandbox:
// awaywork starts it on the owner's side in a sandbox of its own with its secret, bridges its
// socket into the worker's sandbox (127.0.0.1:4190, as the inference proxy's is) and tells the
// CLI to start awaywork's static relay (aw_mcp_relay_static) in its place. The agent is a script standing in for Claude
// Code (provider claude, so the unit writes the CLI's --mcp-config): it starts the server the
// config names, as the CLI would, speaks MCP over its stdio (initialize, tools/call) and writes
// what it learnt into the clone. The server had its secret (its SHA-256 in the answer), could not
// read the owner's hidden file, and the worker's phase held neither the value nor the name.
// Needs root to make the users; skips otherwise (a failure under CI=true).
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "base/sha256.h"
#include "fake_server.h"
#include "mcp_probe.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

// The stand-in for the CLI: argv[1] is the SHA-256 the server's secret must have; the rest is
// what the unit adds for Claude Code (--mcp-config FILE among it). Bounded: a relay that never
// answers fails the probe after a minute instead of hanging the unit.
constexpr const char* kStandIn = R"(#!/usr/bin/python3
import json, os, re, signal, subprocess, sys
out = open('mcp.txt', 'w')
def alarm(*_):
    raise TimeoutError('no answer from the relay')
signal.signal(signal.SIGALRM, alarm)
signal.alarm(60)
try:
    want = sys.argv[1]
    config = sys.argv[sys.argv.index('--mcp-config') + 1]
    text = open(config).read()
    server = json.loads(text)['mcpServers']['probe']
    out.write('RELAY %s %s\n' % (os.path.basename(server['command']), ' '.join(server['args'])))
    out.write('CONFIG_NAMES_SECRET %s\n' % ('MCP_PROBE_TOKEN' in text and 'yes' or 'no'))
    out.write('AGENT_ENV_HAS_SECRET %s\n' % ('MCP_PROBE_TOKEN' in os.environ and 'yes' or 'no'))
    p = subprocess.Popen([server['command']] + server['args'], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    def send(m):
        p.stdin.write(json.dumps(m) + '\n')
        p.stdin.flush()
    send({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
          'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                     'clientInfo': {'name': 'stand-in', 'version': '0'}}})
    init = json.loads(p.stdout.readline())
    out.write('SERVER %s\n' % init['result']['serverInfo']['name'])
    send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    send({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
          'params': {'name': 'probe', 'arguments': {}}})
    answer = json.loads(p.stdout.readline())['result']['content'][0]['text']
    p.stdin.close()
    p.wait(timeout=30)
    out.write('ANSWER %s\n' % answer.startswith('probe-answer '))
    out.write('SECRET_MATCHES %s\n' % (('secret_sha256=' + want) in answer))
    out.write('HIDDEN %s\n' % ('hidden=denied' in answer and 'denied' or 'read'))
    out.write('SERVER_UID %s\n' % re.search(r'uid=(\d+)', answer).group(1))
except Exception as e:
    out.write('ERROR %s %s\n' % (type(e).__name__, e))
out.close()
)";

TEST_F(UserPipeline, AnMcpServerRunOutsideIsCalledThroughTheRelayFromTheWorkersSandbox) {
  AW_NEED_USERS(u);
  world(*u, {{"a.txt", "x\n"}});
  use_test_secret_store();
  store_secret("MODEL_KEY", kAnthropicKey);
  store_secret("MCP_PROBE_TOKEN", kMcpToken);
  ASSERT_EQ(sh(fmt::format("chown -R {0}: {1}/xdg && chmod 700 {1}/xdg", u->owner, root)), 0);
  ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
  FakeServer fake;
  ASSERT_TRUE(fake.start("fake_anthropic.py", root + "/fake.jsonl",
                         {"--tls", root + "/cert.pem", root + "/key.pem"}));
  // The server's script, readable by the owner (its read: path); the owner's private note, which
  // the owner may read and the server's sandbox hides.
  std::string mcp_dir = root + "/mcp", hidden = root + "/hidden";
  make_probe_server_files(mcp_dir, hidden);
  ASSERT_EQ(sh(fmt::format("chmod 755 {0} && chmod 644 {0}/probe_server.py && chown -R {1}: {2} "
                           "&& chmod 700 {2}",
                           mcp_dir, u->owner, hidden)),
            0);
  std::string agent = root + "/agents/stand-in";
  std::ofstream(agent) << kStandIn;
  ::chmod(agent.c_str(), 0755);
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "sandbox: {mode: required, limits: off, hidden: [" << hidden
                        << "], readable: [" << mcp_dir << "]}\n"
                        << "agent: model\n"
                        << "agents:\n  model:\n    provider: claude\n"
                        << "    inference: upstream\n"
                        << "    command: [" << agent << ", \"" << sha256_hex(kMcpToken) << "\"]\n"
                        << probe_server_outside_entry(mcp_dir, hidden)
                        << "inference:\n  upstream:\n    api: anthropic\n"
                        << "    url: https://localhost:" << fake.port() << "\n"
                        << "    credential: MODEL_KEY\n"
                        << "    ca_file: " << root << "/cert.pem\n"
                        << "repos:\n  src:\n    path: " << src << "\n"
                        << "isolation: user\nworker_user: " << kWorker << "\n";
  ::chmod(config.c_str(), 0644);

  auto r = run_as_owner("call the probe tool",
                        {"XDG_CONFIG_HOME=" + root + "/xdg", "AWAYWORK_SECRET_BACKEND=file"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done") << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed:", 0), 0u) << r.out;
  std::string branch = r.record["branch"], run_dir = r.record["run_dir"];
  std::string seen = owner_git(src, "show " + branch + ":mcp.txt");
  // The CLI was told to start the relay towards the bridge inside the worker's sandbox.
  EXPECT_NE(seen.find("aw_mcp_relay_static 127.0.0.1:4190\n"), std::string::npos) << seen;
  // The server had its secret in its own sandbox; the worker's phase held neither the value nor
  // the name.
  expect_the_stand_in_called_the_probe(seen);
  // It ran on the owner's side, not as the worker.
  EXPECT_EQ(seen.find(fmt::format("SERVER_UID {}\n", u->worker.uid)), std::string::npos) << seen;
  EXPECT_NE(r.record["notes"].dump().find("MCP server probe ran outside the unit"),
            std::string::npos)
      << r.record["notes"].dump();
  for (const auto& p : fs::recursive_directory_iterator(root + "/state"))
    if (p.is_regular_file()) {
      EXPECT_EQ(read(p.path()).find(kMcpToken), std::string::npos) << p.path();
    }
  auto where = locations(r);
  if (where.is_object()) fs::remove_all(fs::path(where["clone"].get<std::string>()).parent_path());
}

}  // namespace
}  // namespace aw::test
