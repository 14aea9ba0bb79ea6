// The agent's MCP servers that run outside the unit (`agents.NAME.mcp.SERVER.run: outside`,
// issue 27 item 3): each started on the owner's side in a sandbox of its own
// (plugin/mcp_outside.h), its socket bridged into the isolation the way the inference proxy's is,
// and the agent's CLI told to start the relay the isolation gives in its place (isolate/
// mcp_relay.h: `awaywork __mcp-relay`, or aw_mcp_relay_static lent into a container).
// The CLI's MCP config then names the relay and the socket only: no secret, no variable, no path
// of the server's reaches the unit.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"

namespace aw {

class McpOutsideServer;

// The first port the servers' sockets are bridged onto inside the unit's network namespace (the
// inference proxy has 4180); server i (in the config's order) gets kMcpFirstPort + i.
constexpr uint16_t kMcpFirstPort = 4190;

class AgentMcp {
 public:
  // Starts agent.mcp's outside servers (their folders and sockets in the run folder run_root),
  // reading their secrets from the secret store; literals gains those values (a tool's answer
  // that echoes one is redacted like the model key). An Error names the server and the fix.
  static Result<std::unique_ptr<AgentMcp>> start(const Config& cfg, const AgentConfig& agent,
                                                 const std::string& run_root, Isolator& iso,
                                                 std::vector<std::string>& literals);
  ~AgentMcp();  // stops every server (their sessions end with the unit)

  // Every server of the agent as its CLI is to start it: an inside one as configured, an outside
  // one as the relay with no variable or secret.
  const std::map<std::string, McpServerConfig>& for_cli() const { return for_cli_; }
  // For the record: each outside server's sessions and how they ended.
  std::vector<std::string> notes() const;

 private:
  AgentMcp() = default;
  std::map<std::string, McpServerConfig> for_cli_;
  std::vector<std::unique_ptr<McpOutsideServer>> servers_;
};

}  // namespace aw
