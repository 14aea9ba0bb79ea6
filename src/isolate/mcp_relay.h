// The MCP relay: the stdio MCP server an agent's CLI starts for a server awaywork runs outside the
// unit (plugin/mcp_outside.h, unit/agent_mcp.h). It connects to TARGET (the server's socket as
// the isolation shows it: an absolute unix socket path, or 127.0.0.1:PORT where the isolation
// bridges the socket into the unit's network namespace) and copies its stdin to the socket and
// the socket to its stdout, nothing more: it holds no secret and reads no byte it passes on, so
// it is as safe to run inside the unit as the CLI itself. Two programs run it: awaywork itself
// (`awaywork __mcp-relay TARGET`, isolation none and user, dispatched by cli/main.cc's table of
// helpers before any option parsing) and aw_mcp_relay_static (`aw_mcp_relay_static TARGET`,
// mcp_relay_main.cc), lent read-only into a container whose image has none of awaywork's
// libraries. The C and C++ standard libraries only, so that the static program carries nothing
// else of awaywork.
#pragma once

#include <optional>

namespace aw {

// Relays stdio to target until the session is over; the exit code (2: bad usage, 1: the server
// cannot be reached, with the reason on stderr). program names the relay in its messages.
int run_mcp_relay(const char* program, const char* target);

// `awaywork __mcp-relay TARGET`: the exit code when argv[1] is __mcp-relay, nullopt otherwise.
std::optional<int> mcp_relay_main(int argc, char** argv);

}  // namespace aw
