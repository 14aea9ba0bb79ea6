// The proxy server (Boost.Asio, C++20 coroutines, one thread). Errors are error_codes, never
// exceptions; a connection that misbehaves is closed.
#include "proxy/egress_proxy.h"

#include <openssl/ssl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>

#include "base/fs.h"
#include "base/json_escape.h"
#include "net/tls_client.h"
#include "proxy/egress_policy.h"

namespace aw {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio::awaitable;
using asio::ip::tcp;
using Local = asio::local::stream_protocol;
using boost::system::error_code;
// The phase's side of a CONNECT to a bound host, whose TLS the proxy terminates.
using ClientTls = asio::ssl::stream<Local::socket>;

namespace {

constexpr size_t kMaxHead = 16384;
// A kept-alive terminated TLS connection (a CONNECT to a bound host) carries at most this many
// requests, and is closed when idle this long between them: a phase's client reuses it for the
// round trips of a session (npm's metadata then tarballs), not for ever.
constexpr int kMaxRequestsPerConnection = 200;
constexpr auto kIdleTimeout = std::chrono::seconds(30);

bool private_address(const asio::ip::address& a) {
  if (a.is_loopback() || a.is_unspecified() || a.is_multicast()) return true;
  if (a.is_v6()) {
    auto v6 = a.to_v6();
    if (v6.is_v4_mapped())
      return private_address(asio::ip::make_address_v4(asio::ip::v4_mapped, v6));
    auto b = v6.to_bytes();
    return v6.is_link_local() || (b[0] & 0xfe) == 0xfc;
  }
  auto b = a.to_v4().to_bytes();
  return b[0] == 10 || b[0] == 0 || (b[0] == 172 && (b[1] & 0xf0) == 16) ||
         (b[0] == 192 && b[1] == 168) || (b[0] == 169 && b[1] == 254) ||
         (b[0] == 100 && (b[1] & 0xc0) == 64);
}

struct Request {
  std::string method, host, path, version, host_header;
  uint16_t port = 0;
};

// Parse the request head; "" on success, else why it is refused.
std::string parse_head(const std::string& head, Request& r) {
  size_t eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string::npos || b == a) return "bad request line";
  r.method = line.substr(0, a);
  std::string target = line.substr(a + 1, b - a - 1);
  r.version = line.substr(b + 1);
  for (size_t p = eol; p != std::string::npos && p + 2 < head.size();) {
    size_t next = head.find("\r\n", p + 2);
    std::string h = head.substr(p + 2, next - p - 2);
    if (h.size() > 5 && strncasecmp(h.c_str(), "host:", 5) == 0)
      r.host_header = h.substr(h.find_first_not_of(' ', 5));
    p = next;
  }
  auto split_port = [&](const std::string& hp, uint16_t def) {
    size_t c = hp.rfind(':');
    if (c != std::string::npos && hp.find(']', c) == std::string::npos) {
      r.host = hp.substr(0, c);
      r.port = static_cast<uint16_t>(std::atoi(hp.c_str() + c + 1));
    } else {
      r.host = hp;
      r.port = def;
    }
  };
  if (r.method == "CONNECT") {
    split_port(target, 443);
    return r.port ? "" : "bad CONNECT target";
  }
  if (target.rfind("http://", 0) != 0) return "only CONNECT and absolute http:// URLs";
  size_t slash = target.find('/', 7);
  split_port(target.substr(7, slash == std::string::npos ? std::string::npos : slash - 7), 80);
  r.path = slash == std::string::npos ? "/" : target.substr(slash);
  return r.port ? "" : "bad URL";
}

// A Host header's host, without its port.
std::string host_part(const std::string& hh) {
  size_t colon = hh.rfind(':');
  if (colon == std::string::npos || hh.find(']', colon) != std::string::npos) return hh;
  return hh.substr(0, colon);
}

// A request read inside a terminated TLS connection: origin form only ("GET /path HTTP/1.1"),
// its host being the CONNECT's. "" on success, else why it is refused.
std::string parse_origin(const std::string& head, Request& r) {
  size_t eol = head.find("\r\n");
  std::string line = head.substr(0, eol);
  size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string::npos || b == a) return "bad request line";
  r.method = line.substr(0, a);
  r.path = line.substr(a + 1, b - a - 1);
  r.version = line.substr(b + 1);
  if (r.path.empty() || r.path[0] != '/') return "only origin-form requests inside TLS";
  if (r.method == "CONNECT") return "CONNECT inside TLS";
  r.host_header.clear();
  for (size_t p = eol; p != std::string::npos && p + 2 < head.size();) {
    size_t next = head.find("\r\n", p + 2);
    std::string h = head.substr(p + 2, next - p - 2);
    if (h.size() > 5 && strncasecmp(h.c_str(), "host:", 5) == 0) {
      if (!r.host_header.empty()) return "two Host headers";
      r.host_header = h.substr(h.find_first_not_of(' ', 5));
    }
    p = next;
  }
  return "";
}

// Half-closing each kind of stream the proxy relays: a plain socket says so at once; a TLS
// stream's end is the upstream's to close (the request said Connection: close); the phase's
// terminated TLS ends with a close_notify (close_tls), then its socket's half-close.
void half_close(Local::socket& s) {
  error_code ignored;
  s.shutdown(asio::socket_base::shutdown_send, ignored);
}
void half_close(tcp::socket& s) {
  error_code ignored;
  s.shutdown(asio::socket_base::shutdown_send, ignored);
}
void half_close(UpstreamTls&) {}

// The end of the phase's terminated TLS: a close_notify, so that its client can tell the end of
// the stream from a truncation, then the socket's half-close. The proxy does not wait for the
// client's own close_notify (a client that never sends one would hold the connection open):
// marking it received makes SSL_shutdown complete once ours is written.
awaitable<void> close_tls(ClientTls& s) {
  SSL_set_shutdown(s.native_handle(), SSL_get_shutdown(s.native_handle()) | SSL_RECEIVED_SHUTDOWN);
  error_code ec;
  co_await s.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
  s.lowest_layer().shutdown(asio::socket_base::shutdown_send, ec);
}

bool named(const std::string& line, const std::string& header) {
  return line.size() > header.size() && line[header.size()] == ':' &&
         strncasecmp(line.c_str(), header.c_str(), header.size()) == 0;
}

// The request in origin form, with "Connection: close" unless keep_alive. A plain-HTTP request
// or a plain tunnel is one request per connection, so a second request on a kept-alive connection
// cannot name another virtual host of the same server; a kept-alive terminated TLS connection
// (intercept) reads, checks and frames each request itself before it sends it on. Headers named in
// drop are left out (an injected secret's header: the phase's own copy, which holds at most a
// placeholder), and extra lines are added. keep_alive also leaves out the body (data's bytes past
// the head): the caller sends exactly the body's length.
std::string origin_form(const Request& r, const std::string& data, size_t head_len,
                        const std::vector<std::string>& drop = {}, const std::string& extra = "",
                        bool keep_alive = false) {
  std::string out = fmt::format("{} {} {}\r\n", r.method, r.path, r.version);
  size_t p = data.find("\r\n") + 2;
  while (p < head_len - 2) {
    size_t next = data.find("\r\n", p);
    std::string h = data.substr(p, next - p);
    bool hop = strncasecmp(h.c_str(), "connection:", 11) == 0 ||
               strncasecmp(h.c_str(), "proxy-connection:", 17) == 0 ||
               strncasecmp(h.c_str(), "keep-alive:", 11) == 0;
    for (const auto& d : drop) hop = hop || named(h, d);
    if (!hop && !h.empty()) out += h + "\r\n";
    p = next + 2;
  }
  if (keep_alive) return out + extra + "\r\n";
  return out + extra + "Connection: close\r\n\r\n" + data.substr(head_len);
}

// Every line break of the head is CRLF: a bare CR or LF is a line the upstream could split where
// the proxy did not, and so a header the proxy never saw.
bool clean_head(std::string_view head) {
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\r' && (i + 1 >= head.size() || head[i + 1] != '\n')) return false;
    if (head[i] == '\n' && (i == 0 || head[i - 1] != '\r')) return false;
  }
  return true;
}

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
Framing request_framing(std::string_view head, const Request& r) {
  Framing f;
  f.keep = r.version == "HTTP/1.1";
  bool has_length = false;
  size_t p = head.find("\r\n");
  while (p != std::string_view::npos && p + 2 < head.size()) {
    size_t next = head.find("\r\n", p + 2);
    std::string_view h = head.substr(p + 2, next - p - 2);
    p = next;
    if (h.empty()) break;  // the blank line that ends the head
    size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      f.bad = "bad-header-line";
      return f;
    }
    for (size_t i = 0; i < colon; ++i) {
      unsigned char c = static_cast<unsigned char>(h[i]);
      if (c == 0 || (!std::isalnum(c) && !std::strchr("!#$%&'*+-.^_`|~", c))) {
        f.bad = "bad-header-line";
        return f;
      }
    }
    std::string name(h.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value(h.substr(colon + 1));
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t") + 1);
    std::string lower = value;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (name == "content-length") {
      if (has_length || value.empty() || value.size() > 15 ||
          value.find_first_not_of("0123456789") != std::string::npos) {
        f.bad = "bad-content-length";
        return f;
      }
      has_length = true;
      f.body = std::stoull(value);
    } else if (name == "transfer-encoding" || name == "expect" || name == "upgrade") {
      f.keep = false;
    } else if (name == "connection" && (lower.find("close") != std::string::npos ||
                                        lower.find("upgrade") != std::string::npos)) {
      f.keep = false;
    }
  }
  return f;
}

}  // namespace

struct EgressProxy::Impl {
  EgressProxyOptions opt;
  asio::io_context io;
  Local::acceptor acceptor{io};
  std::thread thread;
  std::shared_ptr<asio::ssl::context> tls;  // for bound hosts; made when a rule exists
  // Server contexts for the phase's side of a CONNECT to a bound host, one per host (made at its
  // first CONNECT: a leaf costs a signature). Only the proxy's thread touches this.
  std::map<std::string, std::shared_ptr<asio::ssl::context>> leaves;

  Result<std::shared_ptr<asio::ssl::context>> leaf_context(const std::string& host) {
    std::string h = host;
    while (!h.empty() && h.back() == '.') h.pop_back();
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
    if (auto it = leaves.find(h); it != leaves.end()) return it->second;
    if (!opt.ca) return fail("no unit CA");
    AW_TRY(std::string cert, opt.ca->issue(h));
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    error_code ec;
    std::string chain = cert + opt.ca->cert_pem();
    ctx->use_certificate_chain(asio::buffer(chain), ec);
    if (!ec)
      ctx->use_private_key(asio::buffer(opt.ca->leaf_key_pem()), asio::ssl::context::pem, ec);
    if (ec) return fail("leaf certificate for {}: {}", h, ec.message());
    leaves[h] = ctx;
    return ctx;
  }

  // injected: the names of the secrets added to this request (never their values).
  void log(const Request& r, const EgressDecision& d,
           const std::vector<std::string>& injected = {}) {
    if (!opt.log) return;
    std::string path = r.path.substr(0, r.path.find('?'));  // never the query string
    std::string names;
    for (const auto& n : injected) {     // appended, not `"," + x`: GCC 12's -Wrestrict misfires
      if (!names.empty()) names += ',';  // on that at -O2 (a false positive, fatal with -Werror)
      names += json_escape_bytes(n);
    }
    opt.log(fmt::format(
        R"({{"method":"{}","host":"{}","port":{},"path":"{}","allowed":{},"rule":"{}"{}}})",
        json_escape_bytes(r.method), json_escape_bytes(r.host), r.port, json_escape_bytes(path),
        d.allowed ? "true" : "false", json_escape_bytes(d.rule),
        injected.empty() ? "" : fmt::format(R"(,"injected":"{}")", names)));
  }

  // Parameters are references and callers pass named objects: GCC 12 destroys temporaries in a
  // co_await expression twice.
  template <class Client>
  awaitable<void> refuse(Client& client, const Request& r, const EgressDecision& d) {
    log(r, d);
    std::string body = "refused by awaywork's egress policy: " + d.rule + "\n";
    std::string resp = fmt::format(
        "HTTP/1.1 403 Forbidden\r\nX-Awaywork-Refused: {}\r\nContent-Type: text/plain\r\n"
        "Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        d.rule, body.size(), body);
    error_code ec;
    co_await asio::async_write(client, asio::buffer(resp),
                               asio::redirect_error(asio::use_awaitable, ec));
  }

  // Connect to host:port, refusing private addresses unless the allow rule names an IP.
  awaitable<error_code> connect_upstream(tcp::socket& up, const Request& r, bool ip_rule,
                                         std::string& why) {
    error_code ec;
    std::string name = r.host;
    if (auto it = opt.static_hosts.find(r.host); it != opt.static_hosts.end()) name = it->second;
    tcp::resolver resolver(io);
    auto results = co_await resolver.async_resolve(name, std::to_string(r.port),
                                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      why = "deny resolve-failed";
      co_return ec;
    }
    for (const auto& entry : results) {
      if (!ip_rule && !opt.allow_private_upstream && private_address(entry.endpoint().address())) {
        why = "deny private-address";
        continue;
      }
      up = tcp::socket(io);
      co_await up.async_connect(entry.endpoint(), asio::redirect_error(asio::use_awaitable, ec));
      if (!ec) co_return ec;
      why = "deny connect-failed";
    }
    co_return asio::error::host_unreachable;
  }

  template <class From, class To>
  static awaitable<void> pump(std::shared_ptr<From> from, std::shared_ptr<To> to) {
    char buf[16384];
    bool from_ended_cleanly = false;
    for (;;) {
      error_code ec;
      size_t n = co_await from->async_read_some(asio::buffer(buf),
                                                asio::redirect_error(asio::use_awaitable, ec));
      from_ended_cleanly = ec == asio::error::eof;
      if (ec || n == 0) break;
      co_await asio::async_write(*to, asio::buffer(buf, n),
                                 asio::redirect_error(asio::use_awaitable, ec));
      if (ec) break;
    }
    // The phase's TLS gets a close_notify when the upstream's end was clean (its own close_notify
    // or a plain EOF): a truncated upstream stays a truncation the phase's client can see.
    if constexpr (std::is_same_v<To, ClientTls>) {
      if (!from_ended_cleanly) {
        half_close(to->next_layer());
        co_return;
      }
      co_await close_tls(*to);
    } else {
      half_close(*to);
    }
  }

  // What a request to a bound host becomes upstream: its head with the matching rules' headers set
  // by the proxy and the phase's own copies of them dropped, or why it is refused.
  struct Prepared {
    std::string head;
    std::vector<std::string> names;  // the secrets added (never their values)
    std::optional<EgressDecision> refused;
  };
  Prepared prepare(const Request& r, const std::string& data, size_t head_len, bool keep_alive) {
    Prepared p;
    if (!clean_head(std::string_view(data).substr(0, head_len))) {
      p.refused = EgressDecision{false, "deny bare-line-break"};
      return p;
    }
    // A host whose rule is exclusive (the read-only forge) takes nothing outside it: a write or
    // another repository is refused here, before any upstream connection, not sent on bare.
    if (auto owner = outside_exclusive_rule(opt.inject, r.host, r.method, r.path)) {
      p.refused = EgressDecision{false, "deny outside-rule " + *owner};
      return p;
    }
    std::vector<std::string> drop = bound_headers(opt.inject, r.host);
    drop.push_back("proxy-authorization");
    std::string extra;
    for (const EgressInjection* rule : matching_injections(opt.inject, r.host, r.method, r.path)) {
      extra += rule->header + ": " + injected_value(*rule) + "\r\n";
      p.names.push_back(rule->secret);
    }
    p.head = origin_form(r, data, head_len, drop, extra, keep_alive);
    return p;
  }

  // A verified TLS connection to the bound host r names, or null with why (a refusal's rule).
  awaitable<std::shared_ptr<UpstreamTls>> open_bound(const Request& r, std::string& why) {
    auto sock = std::make_shared<tcp::socket>(io);
    bool ip_rule = is_ip_literal(r.host);
    error_code ec = co_await connect_upstream(*sock, r, ip_rule, why);
    if (ec) co_return nullptr;
    UpstreamUrl url;
    url.tls = true;
    url.host = r.host;
    while (!url.host.empty() && url.host.back() == '.') url.host.pop_back();
    url.port = r.port;
    auto up = std::make_shared<UpstreamTls>(beast::tcp_stream(std::move(*sock)), *tls);
    std::string bad = co_await tls_handshake(*up, url);
    if (!bad.empty()) {
      why = "deny upstream-tls-unverified";
      co_return nullptr;
    }
    beast::get_lowest_layer(*up).expires_never();
    co_return up;
  }

  // A request to a host an injection rule binds, read in clear (plain HTTP to the proxy, or the
  // last request of a terminated TLS connection): sent over verified TLS as prepare() makes it,
  // with Connection: close upstream, then relayed both ways as it comes. Each request is matched
  // against the rules, and a redirect elsewhere is a new request to another host, which no rule of
  // this one reaches. True when the relay started (it owns the connections' ends from there).
  template <class Client>
  awaitable<bool> bound_session(std::shared_ptr<Client>& client, Request& r,
                                const std::string& data, size_t head_len, const EgressDecision& d,
                                bool via_connect) {
    Prepared p = prepare(r, data, head_len, false);
    if (p.refused) {
      co_await refuse(*client, r, *p.refused);
      co_return false;
    }
    if (!via_connect && r.port == 80) r.port = 443;  // http://HOST/ names the service
    std::string why;
    std::shared_ptr<UpstreamTls> up = co_await open_bound(r, why);
    if (!up) {
      EgressDecision no{false, why};
      co_await refuse(*client, r, no);
      co_return false;
    }
    log(r, d, p.names);
    error_code ec;
    co_await asio::async_write(*up, asio::buffer(p.head),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return false;
    asio::co_spawn(io, pump(client, up), asio::detached);
    asio::co_spawn(io, pump(up, client), asio::detached);
    co_return true;
  }

  // The upstream side of a kept-alive terminated TLS connection: opened at its first request,
  // reused by the next ones while the server keeps it (same host and port: the CONNECT's).
  struct KeptUpstream {
    std::shared_ptr<UpstreamTls> stream;
    beast::flat_buffer buf;  // bytes read past a response (none from a well-behaved server)
  };

  enum class Relayed {
    keep,     // both connections may carry another request
    close,    // the answer ends the connection (it said close, or ends with the upstream's end)
    nothing,  // no byte came back (a kept connection the server closed while idle)
    broken,   // cut short: the phase must see a truncation, not a clean end
  };

  // Relays the upstream's answer to one request to the phase (a 1xx first, then the final one),
  // parsed and re-serialized by Beast piece by piece (the relay of Beast's examples): its end is
  // known, so the next request can follow on both connections. A HEAD's answer has no body.
  static awaitable<Relayed> relay_response(UpstreamTls& up, beast::flat_buffer& buf,
                                           ClientTls& client, bool head_request) {
    for (bool first = true;; first = false) {
      http::response_parser<http::buffer_body> p;
      p.header_limit(64 * 1024);  // real services' heads (CSP, cookies) pass 8 KiB
      p.body_limit(std::numeric_limits<std::uint64_t>::max());
      if (head_request) p.skip(true);
      error_code ec;
      co_await http::async_read_header(up, buf, p, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return first && !p.got_some() && buf.size() == 0 ? Relayed::nothing
                                                                     : Relayed::broken;
      http::response_serializer<http::buffer_body> sr{p.get()};
      char data[16384];
      do {
        if (!p.is_done()) {
          p.get().body().data = data;
          p.get().body().size = sizeof data;
          co_await http::async_read(up, buf, p, asio::redirect_error(asio::use_awaitable, ec));
          if (ec == http::error::need_buffer) ec = {};
          if (ec) co_return Relayed::broken;
          p.get().body().size = sizeof data - p.get().body().size;
          p.get().body().data = data;
          p.get().body().more = !p.is_done();
        } else {
          p.get().body().data = nullptr;
          p.get().body().size = 0;
          p.get().body().more = false;
        }
        co_await http::async_write(client, sr, asio::redirect_error(asio::use_awaitable, ec));
        if (ec == http::error::need_buffer) ec = {};
        if (ec) co_return Relayed::broken;
      } while (!p.is_done() && !sr.is_done());
      unsigned status = p.get().result_int();
      if (status / 100 == 1 && status != 101) continue;  // 100 Continue: the answer follows
      co_return status != 101 && p.get().keep_alive() && !p.need_eof() ? Relayed::keep
                                                                        : Relayed::close;
    }
  }

  // One request of a kept-alive terminated TLS connection, already checked as intercept checks
  // every request: prepared (its own rules, its own secrets), sent on over the kept upstream
  // connection (opened, or reopened once when the server had closed it while idle and the request
  // has no body to resend), its body of exactly body bytes after it, and its answer relayed back.
  // in holds what was read from the phase; the request's bytes are taken from it.
  awaitable<Relayed> exchange(std::shared_ptr<ClientTls>& client, KeptUpstream& up, Request& r,
                              std::string& in, size_t head_len, uint64_t body,
                              const EgressDecision& d) {
    Prepared p = prepare(r, in, head_len, true);
    if (p.refused) {
      co_await refuse(*client, r, *p.refused);
      co_return Relayed::close;
    }
    in.erase(0, head_len);
    for (int attempt = 0;; ++attempt) {
      bool reused = up.stream != nullptr;
      if (!up.stream) {
        std::string why;
        up.stream = co_await open_bound(r, why);
        up.buf.consume(up.buf.size());
        if (!up.stream) {
          EgressDecision no{false, why};
          co_await refuse(*client, r, no);
          co_return Relayed::close;
        }
      }
      if (attempt == 0) log(r, d, p.names);
      error_code ec;
      co_await asio::async_write(*up.stream, asio::buffer(p.head),
                                 asio::redirect_error(asio::use_awaitable, ec));
      // The body: what came with the head, then the rest from the phase; bytes past it are the
      // next request's, left in `in`.
      for (uint64_t left = body; !ec && left > 0;) {
        if (in.empty()) {
          char buf[16384];
          size_t n = co_await client->async_read_some(
              asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
          if (ec) co_return Relayed::broken;
          in.append(buf, n);
        }
        size_t take = static_cast<size_t>(std::min<uint64_t>(left, in.size()));
        co_await asio::async_write(*up.stream, asio::buffer(in.data(), take),
                                   asio::redirect_error(asio::use_awaitable, ec));
        in.erase(0, take);
        left -= take;
      }
      Relayed done = Relayed::nothing;
      if (!ec) done = co_await relay_response(*up.stream, up.buf, *client, r.method == "HEAD");
      if (done != Relayed::keep) up.stream.reset();
      if ((ec || done == Relayed::nothing) && reused && body == 0 && attempt == 0) continue;
      if (ec) co_return Relayed::broken;
      co_return done == Relayed::nothing ? Relayed::broken : done;
    }
  }

  // A CONNECT to a bound host: the proxy answers the tunnel, is the TLS server itself with a
  // certificate the unit's CA issues for that host, and reads the requests inside one by one, each
  // checked on its own (Host the CONNECT's, no stray placeholder, the rules' methods and paths) and
  // sent on as prepare() makes it. The connection is kept alive (so a phase's client pays one
  // handshake for a session, not one per request) while each request's end is known
  // (request_framing) and each answer's (relay_response), for at most kMaxRequestsPerConnection
  // requests and kIdleTimeout between two; the upstream connection is kept alongside. A request
  // that cannot be framed is the last, relayed as bound_session relays. A refusal ends the
  // connection. A phase that does not trust the unit's CA fails its own handshake.
  awaitable<void> intercept(std::shared_ptr<Local::socket>& client, Request& r,
                            const std::string& data, size_t head_len, const EgressDecision& d) {
    if (data.size() > head_len) {  // bytes before the 200: a client waits for it
      EgressDecision no{false, "deny early-data"};
      co_await refuse(*client, r, no);
      co_return;
    }
    auto ctx = leaf_context(r.host);
    if (!ctx) {
      EgressDecision no{false, "deny unit-ca-failed"};
      co_await refuse(*client, r, no);
      co_return;
    }
    error_code ec;
    static const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
    co_await asio::async_write(*client, asio::buffer(ok),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    auto tls = std::make_shared<ClientTls>(std::move(*client), **ctx);
    co_await tls->async_handshake(asio::ssl::stream_base::server,
                                  asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      r.path = "tls=" + ec.message();
      log(r, {false, "deny phase-tls-failed"});  // the phase's client refused the unit's CA
      co_return;
    }
    // The name the phase's client asked for is the CONNECT's host, as for a plain tunnel.
    const char* sni = SSL_get_servername(tls->native_handle(), TLSEXT_NAMETYPE_host_name);
    if (opt.check_sni && (!sni || !decide_host({r.host}, sni).allowed)) {
      r.path = sni ? std::string("sni=") + sni : "sni=none";
      log(r, {false, "deny sni-mismatch"});
      co_await close_tls(*tls);
      co_return;
    }
    std::string in;  // read from the phase, not yet sent on: the next request's bytes
    KeptUpstream up;
    for (int served = 0;; ++served) {
      // Idle between requests (or a head that never ends): the connection is closed.
      asio::steady_timer idle(io, kIdleTimeout);
      idle.async_wait([tls](error_code e) {
        if (!e) tls->next_layer().cancel(e);
      });
      size_t n = co_await asio::async_read_until(*tls, asio::dynamic_buffer(in, kMaxHead),
                                                 "\r\n\r\n",
                                                 asio::redirect_error(asio::use_awaitable, ec));
      idle.cancel();
      if (ec) break;  // the phase closed it, or it sat idle
      Request inner = r;
      std::string_view head = std::string_view(in).substr(0, n);
      std::string bad = parse_origin(std::string(head), inner);
      if (bad.empty() && strcasecmp(host_part(inner.host_header).c_str(), r.host.c_str()) != 0)
        bad = "host-header-mismatch";  // HTTP/1.1 requires Host: it must name the CONNECT's host
      Framing framing;
      if (bad.empty()) {
        framing = request_framing(head, inner);
        bad = framing.bad;
      }
      if (!bad.empty()) {
        EgressDecision no{false, "deny " + bad};
        co_await refuse(*tls, inner, no);
        break;
      }
      // Another secret's placeholder on its way to this host: refused as over plain HTTP.
      if (auto stray = stray_placeholder(opt.placeholders, opt.inject, r.host, false, head)) {
        EgressDecision no{false, "deny placeholder-exfiltration " + *stray};
        co_await refuse(*tls, inner, no);
        break;
      }
      if (!framing.keep || served + 1 >= kMaxRequestsPerConnection) {
        up.stream.reset();
        bool relaying = co_await bound_session(tls, inner, in, n, d, true);
        if (relaying) co_return;  // the relay ends the phase's TLS (pump)
        break;
      }
      Relayed done = co_await exchange(tls, up, inner, in, n, framing.body, d);
      if (done == Relayed::keep) continue;
      if (done == Relayed::broken) {
        half_close(tls->next_layer());  // no close_notify: the phase's client sees the cut
        co_return;
      }
      break;
    }
    co_await close_tls(*tls);
  }

  awaitable<void> session(Local::socket sock) {
    auto client = std::make_shared<Local::socket>(std::move(sock));
    std::string data;
    error_code ec;
    size_t head_len =
        co_await asio::async_read_until(*client, asio::dynamic_buffer(data, kMaxHead), "\r\n\r\n",
                                        asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    Request r;
    std::string bad = parse_head(data.substr(0, head_len), r);
    if (!bad.empty()) {
      EgressDecision no{false, "deny " + bad};
      co_await refuse(*client, r, no);
      co_return;
    }
    // A placeholder on its way anywhere but its own rule's host (checked before the allowlist:
    // an attempt is logged as one whichever host it names).
    if (auto stray =
            stray_placeholder(opt.placeholders, opt.inject, r.host, r.method == "CONNECT", data)) {
      EgressDecision no{false, "deny placeholder-exfiltration " + *stray};
      co_await refuse(*client, r, no);
      co_return;
    }
    EgressDecision d = decide_host(opt.allow, r.host);
    if (!d.allowed) {
      co_await refuse(*client, r, d);
      co_return;
    }
    if (r.method != "CONNECT") {
      // Plain HTTP: the Host header must name the same host (no fronting), then origin-form.
      std::string hh = r.host_header.substr(0, r.host_header.rfind(':') == std::string::npos ||
                                                       r.host_header.find(']') != std::string::npos
                                                   ? std::string::npos
                                                   : r.host_header.rfind(':'));
      if (!hh.empty() && strcasecmp(hh.c_str(), r.host.c_str()) != 0) {
        EgressDecision no{false, "deny host-header-mismatch"};
        co_await refuse(*client, r, no);
        co_return;
      }
      if (bound_host(opt.inject, r.host)) {
        co_await bound_session(client, r, data, head_len, d, false);
        co_return;
      }
    }
    if (r.method == "CONNECT" && bound_host(opt.inject, r.host)) {
      co_await intercept(client, r, data, head_len, d);
      co_return;
    }
    std::string first;  // what goes upstream before relaying
    if (r.method == "CONNECT") {
      // Promise the tunnel, then read the ClientHello before any upstream connection is made.
      static const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
      co_await asio::async_write(*client, asio::buffer(ok),
                                 asio::redirect_error(asio::use_awaitable, ec));
      first = data.substr(head_len);
      bool complete = false;
      char buf[4096];
      while (!ec && (client_hello_sni(first, &complete), !complete) && first.size() < kMaxHead) {
        size_t n = co_await client->async_read_some(asio::buffer(buf),
                                                    asio::redirect_error(asio::use_awaitable, ec));
        first.append(buf, n);
      }
      auto sni = client_hello_sni(first, &complete);
      bool tls = !first.empty() && static_cast<unsigned char>(first[0]) == 0x16;
      if (ec || (opt.check_sni && tls && (!sni || !decide_host({r.host}, *sni).allowed))) {
        r.path = sni ? "sni=" + *sni : "sni=none";
        log(r, {false, "deny sni-mismatch"});
        co_return;  // the tunnel was promised: closing is the refusal
      }
      if (auto stray = stray_placeholder(opt.placeholders, opt.inject, r.host, true, first)) {
        log(r, {false, "deny placeholder-exfiltration " + *stray});
        co_return;  // bytes in clear in a tunnel: the same refusal
      }
    } else {
      first = origin_form(r, data, head_len);
    }
    auto up = std::make_shared<tcp::socket>(io);
    std::string why;
    bool ip_rule = is_ip_literal(r.host);
    error_code up_ec = co_await connect_upstream(*up, r, ip_rule, why);
    if (up_ec) {
      EgressDecision no{false, why};
      if (r.method == "CONNECT")
        log(r, no);  // after the 200, closing is all that is left
      else
        co_await refuse(*client, r, no);
      co_return;
    }
    log(r, d);
    co_await asio::async_write(*up, asio::buffer(first),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    asio::co_spawn(io, pump(client, up), asio::detached);
    asio::co_spawn(io, pump(up, client), asio::detached);
  }

  awaitable<void> accept_loop() {
    for (;;) {
      error_code ec;
      Local::socket s =
          co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec == asio::error::operation_aborted) co_return;
      if (!ec) asio::co_spawn(io, session(std::move(s)), asio::detached);
    }
  }
};

EgressProxy::EgressProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<EgressProxy>> EgressProxy::start(EgressProxyOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  if (!impl->opt.inject.empty()) {
    AW_TRY(impl->tls, with_context(make_tls_context(impl->opt.ca_file), "egress proxy"));
    if (!impl->opt.ca) {
      std::vector<std::string> hosts;
      for (const auto& rule : impl->opt.inject) hosts.push_back(rule.host);
      AW_TRY(impl->opt.ca, with_context(UnitCa::make(hosts), "egress proxy"));
    }
  }
  const std::string& path = impl->opt.socket_path;
  ::unlink(path.c_str());
  error_code ec;
  impl->acceptor.open(Local(), ec);
  mode_t old = ::umask(0177);
  if (!ec) impl->acceptor.bind(Local::endpoint(path), ec);
  ::umask(old);
  if (!ec) impl->acceptor.listen(128, ec);
  if (ec) return fail("egress proxy: listen on {}: {}", path, ec.message());
  asio::co_spawn(impl->io, impl->accept_loop(), asio::detached);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    try {
      raw->io.run();
    } catch (...) {  // nothing may escape the proxy thread
    }
  });
  return std::unique_ptr<EgressProxy>(new EgressProxy(std::move(impl)));
}

EgressProxy::~EgressProxy() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  ::unlink(impl_->opt.socket_path.c_str());
}

const std::string& EgressProxy::socket_path() const {
  return impl_->opt.socket_path;
}

std::string EgressProxy::ca_cert_pem() const {
  return impl_->opt.ca ? impl_->opt.ca->cert_pem() : "";
}

LoggedEgress::~LoggedEgress() {
  proxy.reset();  // joins the proxy's thread before its log closes
  if (log) std::fclose(log);
}

Result<std::unique_ptr<LoggedEgress>> start_logged_egress(EgressProxyOptions options,
                                                          const std::string& log_path) {
  auto e = std::make_unique<LoggedEgress>();
  e->log = std::fopen(log_path.c_str(), "ae");
  options.log = [log = e->log](const std::string& line) {
    if (log) std::fprintf(log, "%s\n", line.c_str()), std::fflush(log);
  };
  AW_TRY(e->proxy, with_context(EgressProxy::start(std::move(options)), "egress proxy"));
  return e;
}

}  // namespace aw
