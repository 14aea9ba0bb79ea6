// A unit's own certificate authority (issue 27): the egress proxy terminates TLS for the hosts an
// injection rule binds, so that it can add the secret to an https:// request, and shows the phase
// a certificate for that host issued here. The key (EC P-256: made in about a millisecond) lives
// only in this object, in awaywork's memory, never in a file: the phase gets the certificate
// alone, in a bundle with the system's CAs. The CA is name-constrained to the bound hosts, so
// that even its certificate can vouch for nothing else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

class UnitCa {
 public:
  // A new CA for hosts (the rules' hosts, lowercase names; at least one).
  static Result<std::shared_ptr<const UnitCa>> make(const std::vector<std::string>& hosts);
  ~UnitCa();

  const std::string& cert_pem() const { return cert_pem_; }
  // A leaf certificate for host (a DNS name), signed by this CA, for the shared leaf key.
  Result<std::string> issue(const std::string& host) const;
  const std::string& leaf_key_pem() const { return leaf_key_pem_; }

  struct Keys;

 private:
  UnitCa() = default;
  std::unique_ptr<Keys> keys_;
  std::string cert_pem_, leaf_key_pem_;
};

// The variables that point the usual clients at a CA bundle: OpenSSL (curl, Python, git, Ruby,
// Go on Linux), Node, requests, pip, git, curl, cargo.
const std::vector<std::string>& ca_bundle_env_names();

// The system's CA bundle (OpenSSL's default file, else the usual distribution paths; "" when
// none is found) followed by ca's certificate: what a phase trusts, so that the bound hosts'
// certificates the proxy issues verify and every other host's real one still does.
std::string ca_bundle_text(const UnitCa& ca);
// Written to path with mode 0644 (the certificates are public), replacing it.
Status write_ca_bundle(const std::string& path, const UnitCa& ca);

}  // namespace aw
