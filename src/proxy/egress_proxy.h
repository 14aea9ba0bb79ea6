// awaywork's egress proxy (network: allowlist): an HTTP proxy on a unix socket, outside the
// sandbox, which the sandbox reaches through a bridge on 127.0.0.1 inside its network namespace.
// It allows CONNECT and plain absolute-URI HTTP only to allowed hosts, refuses with 403 and an
// X-Awaywork-Refused header naming the rule, refuses a TLS ClientHello whose SNI differs from the
// CONNECT host, never connects to loopback/private addresses a name resolves to (unless that
// address is itself listed), and logs one JSON line per request (no bodies, no query strings).
//
// Injected secrets (issue 27): for a host that a rule binds, the proxy reads the phase's request
// and reaches HOST over TLS with the upstream's certificate verified, adding the secret where the
// rule says. The phase may send http://HOST/... in clear to the proxy (a leg inside the unit
// only), or CONNECT HOST:PORT as for any https:// URL: then the proxy terminates that TLS itself
// with a certificate for HOST from the unit's CA (UnitCa, whose key only the proxy holds; the
// phase trusts its certificate through the unit's CA bundle). A CONNECT to any other host stays a
// plain tunnel the proxy cannot read. A request that carries a placeholder to a host without that
// secret's rule is refused and logged. A host with an exclusive rule (the read-only forge) takes
// only what its rules match: any other request to it is refused (deny outside-rule NAME).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "proxy/egress_policy.h"
#include "proxy/unit_ca.h"

namespace aw {

struct EgressProxyOptions {
  std::string socket_path;                          // created (replaced) with mode 0600
  std::vector<std::string> allow;                   // see decide_host
  std::function<void(const std::string&)> log;      // one JSON object per call, no newline
  std::map<std::string, std::string> static_hosts;  // host -> IP, looked up before DNS (tests)
  bool allow_private_upstream = false;              // tests: let names resolve to 127.0.0.1
  bool check_sni = true;                            // false only in mutation tests
  std::vector<EgressInjection> inject;              // the secrets this proxy adds, and to what
  // placeholder -> secret name: what the phase holds instead of each value, refused on its way to
  // any host without that secret's rule
  std::map<std::string, std::string> placeholders;
  std::string ca_file;  // extra CA bundle for the bound hosts' TLS (tests); "" = the system store
  // The unit's CA, which issues the bound hosts' certificates for a CONNECT to them; made by
  // start() when rules exist and this is null (the unit makes it first, to hand its certificate
  // to the phases).
  std::shared_ptr<const UnitCa> ca;
};

class EgressProxy {
 public:
  static Result<std::unique_ptr<EgressProxy>> start(EgressProxyOptions options);
  ~EgressProxy();  // stops the proxy and its thread, removes the socket
  const std::string& socket_path() const;
  // The unit CA's certificate (PEM), "" when no rule binds a host.
  std::string ca_cert_pem() const;

  struct Impl;

 private:
  explicit EgressProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A unit's egress proxy with its log file, as both sandboxes run it (isolate/none, one per unit;
// isolate/container, relayed by the bridge): one line a request appended to log_path. Closed in
// that order: the proxy's thread is joined before its log closes.
struct LoggedEgress {
  std::unique_ptr<EgressProxy> proxy;
  std::FILE* log = nullptr;
  ~LoggedEgress();
};
// Opens log_path (a proxy without its log still runs), then starts the proxy with options whose
// log writes there.
Result<std::unique_ptr<LoggedEgress>> start_logged_egress(EgressProxyOptions options,
                                                          const std::string& log_path);

}  // namespace aw
