// What the inference proxy says and passes on, as pure functions: the provider-shaped error
// bodies (so the agent CLIs print a clear message), which headers cross in each direction, where
// the real credential goes, and the log line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aw {

// A JSON error body in the provider's own format for an HTTP status (400, 401, 403, 502...).
std::string provider_error_body(const std::string& api, int status, const std::string& message);

// Whether a request path (no query) is one of allow: exact entries, or prefixes ending in '*'.
// An empty list allows every path.
bool path_allowed(const std::vector<std::string>& allow, std::string_view path);

// Request headers the agent sent that never reach the upstream: its credentials (x-api-key,
// authorization, cookie, proxy-authorization), hop-by-hop headers, and what the proxy sets itself
// (host, content-length, accept-encoding: the body must stay readable for token counting).
bool drop_request_header(std::string_view name);

// Response headers not relayed: hop-by-hop, framing (the proxy frames its own), set-cookie.
bool drop_response_header(std::string_view name);

// Header name and value carrying the real credential: anthropic OAuth tokens (sk-ant-oat...) and
// every openai key as "Authorization: Bearer", other anthropic keys as "x-api-key".
std::pair<std::string, std::string> credential_header(const std::string& api,
                                                      const std::string& credential);

struct InferenceLogEntry {
  std::string method, path;  // path without its query string
  int status = 0, upstream_status = 0;
  uint64_t tokens_in = 0, tokens_out = 0;
  std::string refused;  // the rule that refused it, "" when forwarded
};
std::string inference_log_line(const InferenceLogEntry& e);

}  // namespace aw
