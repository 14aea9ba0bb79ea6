// An MCP server with `run: outside` (issue 27 item 3) under isolation container, end to end: the
// real binary, a real engine and the test image. awaywork starts the server on the owner's side
// in a sandbox of its own with its secret; the unit's bridge container relays 127.0.0.1:4190 of
// the namespace the agent's container joins to the server's socket (as it does the inference
// proxy's 4180); aw_mcp_relay_static is lent read-only at /.awaywork/mcp-relay, and the MCP
// config the unit writes for Claude Code names it. The agent is a stand-in for Claude Code
// written in bash, since the test image has no python3 (mcp_probe.h: it writes the lines
// pipeline_user_mcp_test.cc's Python stand-in writes): it starts what --mcp-config names, speaks
// MCP over its stdio and dumps what it could read (its environment, every /proc environ and
// cmdline it can open, while the relay runs) into its outputs. The server had its secret; the
// container's environment and files (HOME, the clone, the outputs: all in the run folder, which
// the test scans) never held it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "base/sha256.h"
#include "container_pipeline.h"
#include "fake_server.h"
#include "mcp_probe.h"

namespace aw::test {
namespace {

namespace fs = std::filesystem;

// Claude Code's stand-in, committed at tools/mcp-stand-in.sh: $1 is the SHA-256 the server's
// secret must have; the rest is what the unit adds for Claude Code (--mcp-config FILE among it).
// The config is awaywork's own JSON (two-space indent, one value a line), read with sed. Bounded:
// a relay that never answers fails the probe after a minute instead of hanging the unit.
constexpr const char* kStandIn = R"SH(set +e
want=$1
shift
cfg=
while [ $# -gt 0 ]; do
  [ "$1" = --mcp-config ] && cfg=$2
  shift
done
o=$AWAYWORK_OUTPUTS
exec 3>mcp.txt
line() { printf '%s\n' "$*" >&3; }
if [ ! -r "$cfg" ]; then line "ERROR no --mcp-config"; exit 0; fi
cp "$cfg" "$o/mcp-config.json"
cmd=$(sed -n 's/^ *"command": "\([^"]*\)",\{0,1\}$/\1/p' "$cfg")
mapfile -t args < <(sed -n '/"args": \[/,/\]/s/^ *"\([^"]*\)",\{0,1\}$/\1/p' "$cfg")
line "RELAY $cmd ${args[*]}"
if grep -q MCP_PROBE_TOKEN "$cfg"; then line "CONFIG_NAMES_SECRET yes"; else line "CONFIG_NAMES_SECRET no"; fi
if env | grep -q '^MCP_PROBE_TOKEN='; then line "AGENT_ENV_HAS_SECRET yes"; else line "AGENT_ENV_HAS_SECRET no"; fi
coproc RELAY { "$cmd" "${args[@]}" 2>"$o/relay.err"; }
pid=$RELAY_PID
in=${RELAY[1]}
out=${RELAY[0]}
send() { printf '%s\n' "$1" >&"$in"; }
send '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stand-in", "version": "0"}}}'
init=
if ! read -r -t 60 init <&"$out"; then line "ERROR no answer from the relay: $(cat "$o/relay.err")"; fi
case $init in *'"name": "awaywork-probe"'*) line "SERVER awaywork-probe" ;; esac
send '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
send '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "probe", "arguments": {}}}'
answer=
if ! read -r -t 60 answer <&"$out"; then line "ERROR no answer to tools/call"; fi
# What the agent can read while the relay runs: its environment, every process's environment and
# command line in its container.
env > "$o/env"
for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\0' '\n' 2>/dev/null <"$f"; echo; done > "$o/proc"
eval "exec $in>&-"
for i in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
case $answer in *'probe-answer '*) line "ANSWER True" ;; *) line "ANSWER False" ;; esac
case $answer in *"secret_sha256=$want"*) line "SECRET_MATCHES True" ;; *) line "SECRET_MATCHES False" ;; esac
case $answer in *hidden=denied*) line "HIDDEN denied" ;; *) line "HIDDEN read" ;; esac
uid=${answer#*uid=}
line "SERVER_UID ${uid%% *}"
exit 0
)SH";

TEST_F(ContainerPipeline, AnMcpServerRunOutsideIsCalledThroughTheStaticRelayInTheContainer) {
  use_test_secret_store();
  store_secret("MODEL_KEY", kAnthropicKey);
  store_secret("MCP_PROBE_TOKEN", kMcpToken);
  ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
  FakeServer fake;  // the model: the unit's inference upstream, never asked by the stand-in
  ASSERT_TRUE(fake.start("fake_anthropic.py", root + "/fake.jsonl",
                         {"--tls", root + "/cert.pem", root + "/key.pem"}));
  std::string mcp_dir = root + "/mcp", hidden = root + "/hidden";
  make_probe_server_files(mcp_dir, hidden);
  make_repo({{"a.txt", "x\n"}, {"tools/mcp-stand-in.sh", kStandIn}});
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "isolation: container\ncontainer_engine: docker\n"
                        << "sandbox: {hidden: [" << hidden << "]}\n"
                        << "agent: model\n"
                        << "agents:\n  model:\n    provider: claude\n"
                        << "    inference: upstream\n"
                        << "    command: [bash, tools/mcp-stand-in.sh, \"" << sha256_hex(kMcpToken)
                        << "\"]\n"
                        << probe_server_outside_entry(mcp_dir, hidden)
                        << "inference:\n  upstream:\n    api: anthropic\n"
                        << "    url: https://localhost:" << fake.port() << "\n"
                        << "    credential: MODEL_KEY\n"
                        << "    ca_file: " << root << "/cert.pem\n"
                        << "repos:\n  src:\n    path: " << src << "\n"
                        << "    image: " << kImage << "\n";

  auto r = run_unit("call the probe tool");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto& u = r.record;
  ASSERT_TRUE(u.is_object()) << r.out << r.err;
  EXPECT_EQ(u["state"], "done") << r.out;
  EXPECT_EQ(u["sandbox"], std::string("sandboxed: container docker ") + kImage + ", network none")
      << r.out;
  std::string run_dir = u["run_dir"], id = u["id"];
  std::string out = run_dir + "/work/.away/outputs";
  std::string seen = read(run_dir + "/work/mcp.txt");
  // The CLI was told to start the static relay at its fixed path, towards the bridged port.
  EXPECT_NE(seen.find("RELAY /.awaywork/mcp-relay 127.0.0.1:4190\n"), std::string::npos)
      << seen << read(out + "/mcp-config.json");
  // The server had its secret in its own sandbox; the agent's container held neither the value
  // nor the name.
  expect_the_stand_in_called_the_probe(seen);
  EXPECT_NE(u["notes"].dump().find("MCP server probe ran outside the unit"), std::string::npos)
      << u["notes"].dump();
  // The dumps were made while the relay ran: the relay's own environment and command line are in
  // them, the secret is not; nor the name.
  std::string proc = read(out + "/proc");
  EXPECT_NE(proc.find("/.awaywork/mcp-relay"), std::string::npos) << proc;
  EXPECT_EQ(proc.find(kMcpToken), std::string::npos);
  EXPECT_EQ(read(out + "/env").find("MCP_PROBE_TOKEN"), std::string::npos) << read(out + "/env");
  EXPECT_EQ(read(out + "/mcp-config.json").find("MCP_PROBE_TOKEN"), std::string::npos);
  // Nothing the container could write or read (HOME, TMPDIR, outputs, the clone: all under the
  // run folder) nor anything recorded holds the value.
  std::error_code ec;
  size_t scanned = 0;
  for (auto it = fs::recursive_directory_iterator(root + "/state", ec); it != fs::end(it);
       it.increment(ec)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    ++scanned;
    EXPECT_EQ(read(it->path()).find(kMcpToken), std::string::npos) << it->path();
  }
  EXPECT_GT(scanned, 0u);
  // The unit's containers (its agent's, its bridge) are gone with it.
  EXPECT_TRUE(containers_of(id).empty());
}

}  // namespace
}  // namespace aw::test
