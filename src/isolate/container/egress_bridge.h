// The unit's bridge under isolation container: the only way a phase reaches awaywork's proxies.
// Per unit, one small bridge container on `--network none` runs aw_bridge_static (lent
// read-only): for each {port, socket} pair it listens on 127.0.0.1:PORT in its network namespace
// and relays to that unix socket of awaywork's (the egress proxy of network allowlist,
// proxy/egress_proxy.h, on 3128; the inference proxy, proxy/inference_proxy.h, on 4180). The
// sockets are mounted into the bridge container only. Every phase container of the unit joins
// that namespace (ContainerPlan::proxy_network = the bridge's name): the pairs' ports are its
// only way out, and the sockets themselves are never in a phase container.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/container/engine.h"

namespace aw {

struct BridgePair {
  uint16_t port = 0;   // 127.0.0.1:port inside the bridge's network namespace
  std::string socket;  // a running proxy's unix socket on the host (absolute)
};

struct BridgePlan {
  Engine engine;
  std::string image;    // the unit's image (already present); the bridge needs nothing from it
  std::string name;     // container name, e.g. aw-<unit>-bridge
  std::string unit;     // label awaywork.unit=<unit>: crash recovery and doctor find it
  std::string program;  // aw_bridge_static (static_program.h)
  // One listener each, at least one, at most kMaxBridgePairs, distinct ports.
  std::vector<BridgePair> pairs;
  uid_t uid = 0;  // the owner's: it must be able to connect to the 0600 sockets
  gid_t gid = 0;
  std::string seccomp_profile;  // as the phases' (ContainerPlan::seccomp_profile)
};

inline constexpr size_t kMaxBridgePairs = 8;  // aw_bridge_static's own limit

// The bridge's `run` arguments (after the client), for tests: hardened like a phase, read-only
// root, no network but its own loopback. Error on a plan that would mount something it must not.
Result<std::vector<std::string>> bridge_run_args(const BridgePlan& p);

// Starts the bridge container detached and returns once it listens on every pair's port (the
// listening sockets are seen in the container's /proc/PID/net/tcp), or an Error; on an Error the
// container is removed. The caller removes it with remove_container(engine, name) when the unit
// ends (and before starting it again with other pairs).
Status start_bridge(const BridgePlan& p);

// "http://127.0.0.1:PORT": what HTTP_PROXY/HTTPS_PROXY say inside a phase.
std::string bridge_proxy_url(uint16_t port);

}  // namespace aw
