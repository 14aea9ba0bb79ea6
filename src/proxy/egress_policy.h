// The egress proxy's decisions, as pure functions (no sockets): which host a request may reach,
// and what a TLS ClientHello claims (SNI), so that fronting through an allowed host is refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace aw {

struct EgressDecision {
  bool allowed = false;
  std::string
      rule;  // "allow example.com", "allow *.x.org", "deny ip-literal", "deny not-listed"...
};

// allow entries: "example.com" (exactly that host), "*.example.com" (any subdomain of it, not the
// apex), or an IP literal (only that address). Hosts compare case-insensitively, trailing dot off.
EgressDecision decide_host(const std::vector<std::string>& allow, std::string_view host);

// The server name of a TLS ClientHello record; nullopt when data is not a complete ClientHello
// or carries no SNI. `complete` tells whether more bytes could change the answer.
std::optional<std::string> client_hello_sni(std::string_view data, bool* complete = nullptr);

bool is_ip_literal(std::string_view host);

}  // namespace aw
