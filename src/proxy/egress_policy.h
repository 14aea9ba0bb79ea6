// The egress proxy's decisions, as pure functions (no sockets): which host a request may reach,
// what a TLS ClientHello claims (SNI), so that fronting through an allowed host is refused, and
// which injected secret (issue 27) a request gets or carries where it may not.
#pragma once

#include <map>
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

// A secret the egress proxy adds to the requests one rule allows (config `secrets:`; the unit
// builds these from its InjectRules and the values it read). The phase holds a placeholder only.
struct EgressInjection {
  std::string secret;                    // the secret's name: what the log shows, never the value
  std::string value;                     // the credential
  std::string host;                      // one exact host name, lowercase
  std::string header = "Authorization";  // set by the proxy; the phase's own copy is dropped
  std::string value_template = "Bearer {secret}";
  std::string basic_user;            // non-empty: the value is "Basic base64(user:secret)"
  std::vector<std::string> methods;  // upper-case; empty = every method
  std::vector<std::string> paths;    // path prefixes; empty = every path
  // Paths matched whole, besides the prefixes (the read-only forge's /repos/OWNER/REPO itself,
  // which a prefix "/repos/OWNER/REPO" would extend to /repos/OWNER/REPO-other).
  std::vector<std::string> exact_paths;
  // The host takes only what this secret's rules allow: any other request to it is refused
  // (deny outside-rule NAME) instead of sent on without the secret. The read-only forge for the
  // agent (agent_forge: read) sets it: a write, or a read of another repository, is refused.
  bool exclusive = false;
};

// Whether some rule names host (compared as decide_host does). A bound host's plain-HTTP requests
// are sent upstream over verified TLS, whether or not a rule matches them.
bool bound_host(const std::vector<EgressInjection>& rules, std::string_view host);
// The headers the rules for host set: the phase's own copies of them never go upstream.
std::vector<std::string> bound_headers(const std::vector<EgressInjection>& rules,
                                       std::string_view host);

// The rules whose host, method and path all match. A path with dot segments or encoded dots,
// slashes or backslashes after a rule's prefix never matches it: the server could resolve it
// outside the prefix. (The prefix itself is the config's text: GitLab's /projects/GROUP%2FNAME/
// holds an encoded slash by design.)
std::vector<const EgressInjection*> matching_injections(const std::vector<EgressInjection>& rules,
                                                        std::string_view host,
                                                        std::string_view method,
                                                        std::string_view path);

// The secret of an exclusive rule for host when no rule of host matches the request: the proxy
// refuses it. nullopt when host has no exclusive rule, or a rule matches.
std::optional<std::string> outside_exclusive_rule(const std::vector<EgressInjection>& rules,
                                                  std::string_view host, std::string_view method,
                                                  std::string_view path);

// The header value a rule adds: its template with {secret} replaced, or Basic credentials.
std::string injected_value(const EgressInjection& rule);

// The name of a secret whose placeholder (a key of placeholders, mapped to the secret's name)
// data carries although host has no rule for that secret, or a CONNECT could carry it past the
// proxy: an exfiltration attempt. nullopt when data carries none where it may not.
std::optional<std::string> stray_placeholder(const std::map<std::string, std::string>& placeholders,
                                             const std::vector<EgressInjection>& rules,
                                             std::string_view host, bool connect,
                                             std::string_view data);

}  // namespace aw
