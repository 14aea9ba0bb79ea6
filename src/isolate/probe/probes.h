// The leak suite: probes run inside the configured isolation exactly as an agent would be. Each
// has a stable name and prints "ok NAME" or "LEAK NAME: what it reached". The outer side (the
// `awaywork probe` command, or a test) plants the canaries and passes their places as targets.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"

namespace aw {

struct ProbeTargets {
  using Named = std::vector<std::pair<std::string, std::string>>;  // probe name, path/address
  Named secrets;  // canary files (or folders) that must not be readable: "hidden.ssh", ...
  Named writes;   // folders where creating a file must fail: "write.home", "write.etc"...
  Named sockets;  // host unix sockets that must not accept: "socket.ssh_agent"...
  Named tcp;      // "ip:port" listeners on the host that must not accept: "net.host_loopback"
  // Through the egress proxy named by HTTP_PROXY (network: allowlist): "host:port" targets.
  Named http_allowed;  // must answer 200 through the proxy ("net.allowed_host")
  Named http_denied;   // must be refused ("net.denied_host")
  Named fronting;      // "host:port sni": CONNECT to an allowed host with another SNI must fail
  std::string proc_marker;  // a string in an owner process's environ and cmdline
  std::string keyring_key;  // description of a "user" key in the owner's session keyring
  std::string sys_file;     // a /sys file that must not open for writing
  int fork_bomb = 0;        // processes to try to start (0 = skip)
  uint64_t memory_hog = 0;  // bytes to try to touch (0 = skip)
  bool sudo = false;        // try `sudo -n true`
  bool syscalls = true;     // ptrace, io_uring, tiocsti, tty, vsock, userns, mount
};

struct ProbeResult {
  std::string name;
  bool leaked = false;
  std::string detail;  // what it reached (for a leak) or why it was refused
};

// Text form: one "kind<TAB>name<TAB>value" line per entry; what travels into the sandbox.
std::string format_probe_targets(const ProbeTargets& t);
// A minimal TLS ClientHello record naming sni (for the fronting probe and tests).
std::string make_client_hello(const std::string& sni);
Result<ProbeTargets> parse_probe_targets(const std::string& text);

std::vector<ProbeResult> run_probe_suite(const ProbeTargets& t);

// Runs the suite and prints it ("ok NAME" / "LEAK NAME: ..." lines, or one JSON array).
// Returns the number of leaks.
int run_probes(const ProbeTargets& t, bool json, std::ostream& out);

// The inside half of `awaywork probe` (its hidden `__probe-inside [--json] FILE`, and
// aw_probe_inside for tests and bench): reads the targets file, runs the suite, prints it to out.
// Exit 0 when nothing leaked, 1 on a leak, 2 when the file is unreadable or no targets file (said
// on err, after `who: `).
int probe_inside(const std::string& who, bool json, const std::string& targets_file,
                 std::ostream& out, std::ostream& err);

}  // namespace aw
