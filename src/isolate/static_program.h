// The statically linked programs awaywork lends read-only into an isolation: into a container (an
// image has its own libraries, maybe none of ours) aw_probe_static (`awaywork probe`),
// aw_bridge_static (the egress bridge of network: allowlist) and aw_mcp_relay_static (the MCP
// relay); to the worker of isolation user, the MCP relay.
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

// The program's absolute, link-free path: beside the running executable (a build tree), then in
// ../libexec/awaywork/ from it (installed: /usr/bin/awaywork finds /usr/libexec/awaywork/), then,
// except in a Release build, in the build tree this library was built in (for test binaries).
// Error naming every place looked at (and the ninja target that builds it).
Result<std::string> static_program(const std::string& name);

}  // namespace aw
