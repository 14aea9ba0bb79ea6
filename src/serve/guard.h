// The checks every request passes before it is routed: the Host (DNS rebinding), the Origin
// (another site's page), CORS preflights, a credential in the URL, and for the API the bearer
// token. Pure: the server hands it the few headers it looks at.
//   if (auto no = guard(req, {port, token})) respond(no->status, no->message);
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aw {

struct GuardRequest {
  std::string_view method, target;
  std::optional<std::string_view> host, origin, authorization;
  bool api = false;  // /api/ and /metrics need the token; the page and its files do not
  // Host, Origin or Authorization when the request gives it more than once (the fields above
  // hold the first), else empty: the server would judge one copy and a proxy or the client
  // mean the other (RFC 9112 section 3.2 makes two Host headers a 400).
  std::string_view repeated;
};

struct GuardConfig {
  int port = 0;
  std::string_view token;
};

// Not `Refusal`: check/verdict.h has an aw::Refusal of its own, and both are linked into the
// awaywork binary (two classes of one name break the one-definition rule, and a unity build's
// source that includes both headers does not compile).
struct GuardRefusal {
  int status = 400;
  std::string message;
};

std::optional<GuardRefusal> guard(const GuardRequest& r, const GuardConfig& c);

// "127.0.0.1:PORT", "localhost:PORT" or "[::1]:PORT", exactly.
bool loopback_host(std::string_view host, int port);

// The host:port of the page's URL for a server bound to `bound_address` (an IP literal as the
// socket reports it): a name loopback_host() accepts, on an address that socket holds.
// "127.0.0.1" and "0.0.0.0" give "127.0.0.1:PORT"; "::1" and "::" give "[::1]:PORT". nullopt for
// any other address: no loopback address is this server's then, and a URL to one would hand the
// token to whatever else listens there.
std::optional<std::string> page_host(std::string_view bound_address, int port);

// Equal length and contents, in time that depends only on the length.
bool equal_constant_time(std::string_view a, std::string_view b);

}  // namespace aw
