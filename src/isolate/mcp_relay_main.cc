// aw_mcp_relay_static TARGET: the MCP relay (mcp_relay.h) as a program of its own, statically
// linked, for isolation container: lent read-only into the unit's agent containers at
// kContainerMcpRelay (container/isolator_container.cc), where the agent's CLI starts it in place of
// an MCP server run outside the unit. TARGET is 127.0.0.1:PORT, the port the unit's bridge
// container relays to the server's socket.
#include <cstdio>

#include "isolate/mcp_relay.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: aw_mcp_relay_static SOCKET|127.0.0.1:PORT\n");
    return 2;
  }
  return aw::run_mcp_relay("aw_mcp_relay_static", argv[1]);
}
