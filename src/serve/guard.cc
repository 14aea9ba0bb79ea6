#include "serve/guard.h"

#include <fmt/format.h>

#include "serve/route.h"

namespace aw {

bool equal_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i]);
  return diff == 0;
}

bool loopback_host(std::string_view host, int port) {
  for (const char* name : {"127.0.0.1", "localhost", "[::1]"})
    if (host == fmt::format("{}:{}", name, port)) return true;
  return false;
}

std::optional<std::string> page_host(std::string_view bound_address, int port) {
  if (bound_address == "127.0.0.1" || bound_address == "0.0.0.0")
    return fmt::format("127.0.0.1:{}", port);
  // "::" is every IPv6 address, ::1 included; whether it also holds 127.0.0.1 depends on the
  // socket's IPV6_V6ONLY, so the URL names the one it surely holds.
  if (bound_address == "::1" || bound_address == "::") return fmt::format("[::1]:{}", port);
  return std::nullopt;
}

std::optional<GuardRefusal> guard(const GuardRequest& r, const GuardConfig& c) {
  if (r.method == "OPTIONS")
    return GuardRefusal{
        405,
        "cross-origin requests are not served (no CORS); use the dashboard this server "
        "serves, or a client on this machine"};
  if (!r.repeated.empty())
    return GuardRefusal{
        400, fmt::format("the request has more than one {} header; send it once", r.repeated)};
  if (!r.host || !loopback_host(*r.host, c.port))
    return GuardRefusal{421, fmt::format("the Host header must be 127.0.0.1:{0}, localhost:{0} or "
                                         "[::1]:{0}; open the URL `awaywork serve` printed",
                                         c.port)};
  if (r.origin && *r.origin != "http://" + std::string(*r.host))
    return GuardRefusal{
        403,
        "requests from another site's page are refused; open the dashboard from the "
        "URL `awaywork serve` printed"};
  if (query_has_credential(r.target))
    return GuardRefusal{
        400,
        "never put the token in the URL (URLs are kept in histories and logs); send "
        "it as the header Authorization: Bearer TOKEN"};
  if (!r.api) return std::nullopt;
  constexpr std::string_view kScheme = "Bearer ";
  if (!r.authorization || r.authorization->substr(0, kScheme.size()) != kScheme)
    return GuardRefusal{
        401,
        "the API needs the header Authorization: Bearer TOKEN; the token is in the URL "
        "`awaywork serve` printed (after #token=) and in STATE/serve/token"};
  if (!equal_constant_time(r.authorization->substr(kScheme.size()), c.token))
    return GuardRefusal{
        401, "the token is wrong; use the one `awaywork serve` printed (STATE/serve/token)"};
  return std::nullopt;
}

}  // namespace aw
