// Internal to provider.cc: what each CLI gets so that the clone's own settings, hooks and MCP
// servers are not loaded (unless the repository opts in), and the agent's configured MCP servers
// and plugin folders are. docs/agents.md says what each CLI is handed and why.
#pragma once

#include <nlohmann/json.hpp>

#include "provider/provider.h"

namespace aw::provider_tools {

// claude: the managed settings (bound read-only at /etc/claude-code), --setting-sources,
// --strict-mcp-config, --mcp-config (a file in HOME) and --plugin-dir.
void claude(const LaunchExtras& x, const std::string& home, ProviderLaunch& out);

// codex: the clone marked untrusted in its managed config (bound read-only at /etc/codex: no
// project .codex/ config, MCP servers, hooks or AGENTS.md) and each MCP
// server as `-c mcp_servers.NAME...` overrides (returned, to go after the subcommand).
std::vector<std::string> codex(const LaunchExtras& x, ProviderLaunch& out);

// gemini: its system settings (bound read-only at /etc/gemini-cli, they win over the clone's):
// no hooks, the MCP servers and only them.
void gemini(const LaunchExtras& x, ProviderLaunch& out);
// opencode: the clone's opencode.json, .opencode/, AGENTS.md, CLAUDE.md and skills not loaded.
void opencode(const LaunchExtras& x, ProviderLaunch& out);
// cursor: nothing of its own turns the project's .cursor/ off; an empty folder of awaywork's is
// bound read-only over <clone>/.cursor instead (a lent folder: the sandbox and the container).
void cursor(const LaunchExtras& x, ProviderLaunch& out);

// gemini's mcpServers; opencode: the `mcp` section of its config.
nlohmann::json gemini_mcp(const LaunchExtras& x);
nlohmann::json opencode_mcp(const LaunchExtras& x);

// Every variable an MCP server gets by name (its env: and secrets:), deduplicated.
std::vector<std::string> mcp_names(const LaunchExtras& x);

}  // namespace aw::provider_tools
