// network: allowlist under isolation container. Per unit, one small bridge container on
// `--network none` runs aw_bridge_static (lent read-only): it listens on 127.0.0.1:PORT in its
// network namespace and relays to awaywork's egress proxy (proxy/egress_proxy.h), whose unix
// socket is mounted into the bridge container only. Every phase container of the unit joins that
// namespace (ContainerPlan::proxy_network = the bridge's name) with HTTP(S)_PROXY pointing at the
// port: the proxy is its only way out, and the socket itself is never in a phase container.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "base/result.h"
#include "isolate/container/engine.h"

namespace aw {

struct BridgePlan {
  Engine engine;
  std::string image;    // the unit's image (already present); the bridge needs nothing from it
  std::string name;     // container name, e.g. aw-<unit>-bridge
  std::string unit;     // label awaywork.unit=<unit>: crash recovery and doctor find it
  std::string program;  // aw_bridge_static (static_program.h)
  std::string socket;   // the running egress proxy's unix socket (absolute)
  uid_t uid = 0;        // the owner's: it must be able to connect to the 0600 socket
  gid_t gid = 0;
  uint16_t port = 3128;
  std::string seccomp_profile;  // as the phases' (ContainerPlan::seccomp_profile)
};

// The bridge's `run` arguments (after the client), for tests: hardened like a phase, read-only
// root, no network but its own loopback.
Result<std::vector<std::string>> bridge_run_args(const BridgePlan& p);

// Starts the bridge container detached and returns once it listens (its listening socket is seen
// in the container's /proc/PID/net/tcp), or an Error; on an Error the container is removed.
// The caller removes it with remove_container(engine, name) when the unit ends.
Status start_bridge(const BridgePlan& p);

// "http://127.0.0.1:PORT": what HTTP_PROXY/HTTPS_PROXY say inside a phase.
std::string bridge_proxy_url(uint16_t port);

}  // namespace aw
