// The egress proxy's reading of a phase's HTTP request (egress_proxy.h): its request line and
// Host, how it ends (its framing, so that a kept-alive terminated TLS connection can carry the
// next one), and the origin form the proxy sends on. Text in, text out, no I/O: the proxy's
// coroutines (egress_proxy.cc, egress_inject.cc) call these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aw::egress {

// The longest request head the proxy reads (a longer one is never complete, and refused).
inline constexpr size_t kMaxHead = 16384;

struct Request {
  std::string method, host, path, version, host_header;
  uint16_t port = 0;
};

// Parse the request head; "" on success, else why it is refused.
std::string parse_head(const std::string& head, Request& r);

// A Host header's host, without its port.
std::string host_part(const std::string& hh);

// A request read inside a terminated TLS connection: origin form only ("GET /path HTTP/1.1"),
// its host being the CONNECT's. "" on success, else why it is refused.
std::string parse_origin(const std::string& head, Request& r);

// The request in origin form, with "Connection: close" unless keep_alive. A plain-HTTP request
// or a plain tunnel is one request per connection, so a second request on a kept-alive connection
// cannot name another virtual host of the same server; a kept-alive terminated TLS connection
// (intercept) reads, checks and frames each request itself before it sends it on. Headers named in
// drop are left out (an injected secret's header: the phase's own copy, which holds at most a
// placeholder), and extra lines are added. keep_alive also leaves out the body (data's bytes past
// the head): the caller sends exactly the body's length.
std::string origin_form(const Request& r, const std::string& data, size_t head_len,
                        const std::vector<std::string>& drop = {}, const std::string& extra = "",
                        bool keep_alive = false);

// Every line break of the head is CRLF: a bare CR or LF is a line the upstream could split where
// the proxy did not, and so a header the proxy never saw.
bool clean_head(std::string_view head);

// How a request read inside a terminated TLS connection ends, so that the next one can be read
// and checked on the same connection.
struct Framing {
  bool keep = false;  // another request may follow this one's body
  uint64_t body = 0;  // the body's length (Content-Length; 0 without one)
  std::string bad;    // non-empty: refused, and why
};

// Only what the proxy and any upstream frame alike keeps the connection: a body of one decimal
// Content-Length, or none. A chunked body, an Expect or Upgrade, HTTP/1.0 or the client's own
// Connection: close make the request the connection's last (sent on with Connection: close and
// relayed as it comes, as every request was before keep-alive). A header line that is no
// `name: value` (a folded line, a space before the colon) is refused: an upstream could read it
// as a Transfer-Encoding the proxy never saw, and so a second request hidden in a body.
Framing request_framing(std::string_view head, const Request& r);

}  // namespace aw::egress
