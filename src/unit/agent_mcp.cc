// The agent's MCP servers run outside the unit, bridged in through a relay (agent_mcp.h).
#include "unit/agent_mcp.h"

#include <fmt/format.h>

#include "base/fs.h"
#include "plugin/mcp_outside.h"
#include "secrets/store.h"

namespace aw {

namespace {

// A path bound read-only into the phases' view (nothing to do when they have none).
Status lend(Isolator& iso, const std::string& path, const std::string& what) {
  auto lent = iso.lend_path(path);
  if (!lent) return fail("{}: {}", what, lent.error().message);
  return {};
}

}  // namespace

AgentMcp::~AgentMcp() = default;

Result<std::unique_ptr<AgentMcp>> AgentMcp::start(const Config& cfg, const AgentConfig& agent,
                                                  const std::string& run_root, Isolator& iso,
                                                  std::vector<std::string>& literals) {
  std::unique_ptr<AgentMcp> out(new AgentMcp());
  // The relay the CLI starts in each outside server's place, as the isolation gives it (isolate/
  // isolator.h mcp_relay): asked once, at the first outside server.
  Argv relay;
  // Opened once, at the first secret a server declares (kept by value: the host keeps the call).
  auto store = std::make_shared<std::unique_ptr<SecretStore>>();
  auto secret = [store](const std::string& name) -> Result<std::string> {
    if (!*store) {
      AW_TRY(*store, with_context(open_secret_store({}), "the secret store"));
    }
    return (*store)->get(name);
  };
  uint16_t index = 0;
  for (const auto& [name, m] : agent.mcp) {
    if (!m.outside) {
      out->for_cli_[name] = m;
      continue;
    }
    // Before the server starts: a relay the CLI could not run would fail the unit in its middle.
    if (relay.empty()) {
      AW_TRY(relay, with_context(iso.mcp_relay(),
                                 fmt::format("agent {}: MCP server {} (config line {}) has run: "
                                             "outside",
                                             agent.name, name, m.line)));
    }
    // Folders by number, not by the server's name: a config key is no path component.
    std::string dir = fmt::format("{}/mcp/{}", run_root, index);
    AW_CHECK(with_context(make_dirs(dir, 0700), fmt::format("MCP server {}", name)));
    uint16_t port = static_cast<uint16_t>(kMcpFirstPort + index);
    AW_TRY(SocketBridge bridge,
           with_context(iso.bridge_socket(fmt::format("{}/mcp-{}.sock", run_root, index), port),
                        fmt::format("MCP server {} (agent {})", name, agent.name)));
    ++index;
    McpOutsideHost host = mcp_outside_host(cfg, dir);
    host.secret = secret;
    AW_TRY(auto server, McpOutsideServer::start(m, host, bridge.path));
    for (auto& v : server->secret_values()) literals.push_back(std::move(v));
    std::string target = bridge.path;
    if (bridge.bridged) {
      target = fmt::format("127.0.0.1:{}", port);
    } else {
      // The phases share the host's network (unsandboxed, or network host): the socket itself,
      // bound read-only into a sandbox's view (a socket is reached through a read-only mount).
      AW_CHECK(lend(iso, bridge.path, fmt::format("MCP server {}", name)));
    }
    McpServerConfig cli;
    cli.name = name;
    cli.command = relay;
    cli.command.push_back(target);
    out->for_cli_[name] = std::move(cli);
    out->servers_.push_back(std::move(server));
  }
  return out;
}

std::vector<std::string> AgentMcp::notes() const {
  std::vector<std::string> out;
  for (const auto& s : servers_)
    for (auto& n : s->notes()) out.push_back(std::move(n));
  return out;
}

}  // namespace aw
