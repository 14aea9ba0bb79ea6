// `awaywork __mcp-relay TARGET` (hidden): the stdio MCP server the agent's CLI starts for a server
// awaywork runs outside the unit (plugin/mcp_outside.h). It connects to TARGET (the server's
// socket as the isolation shows it: an absolute unix socket path, or 127.0.0.1:PORT where the
// isolation bridges the socket into the unit's network namespace) and copies its stdin to the
// socket and the socket to its stdout, nothing more: it holds no secret and reads no byte it
// passes on, so it is as safe to run inside the unit as the CLI itself. cli/main.cc's table of
// helpers dispatches to it before any option parsing.
#pragma once

#include <optional>

namespace aw {

// The exit code when argv[1] is __mcp-relay, nullopt otherwise.
std::optional<int> mcp_relay_main(int argc, char** argv);

}  // namespace aw
