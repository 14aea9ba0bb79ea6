// The egress proxy's path to a host an injection rule binds (egress_proxy.h, issue 27): each
// request checked against the rules and sent on over verified TLS with the secret added, and for a
// CONNECT to such a host, the TLS the proxy terminates with a leaf of the unit's CA, kept alive
// request by request. The plain tunnel and the routing to here are egress_proxy.cc's.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <limits>
#include <string_view>

#include "proxy/egress_proxy_impl.h"

namespace aw {

using egress::clean_head;
using egress::Framing;
using egress::half_close;
using egress::host_part;
using egress::kMaxHead;
using egress::origin_form;
using egress::parse_origin;
using egress::request_framing;

namespace {

// A kept-alive terminated TLS connection (a CONNECT to a bound host) carries at most this many
// requests, and is closed when idle this long between them: a phase's client reuses it for the
// round trips of a session (npm's metadata then tarballs), not for ever.
constexpr int kMaxRequestsPerConnection = 200;
constexpr auto kIdleTimeout = std::chrono::seconds(30);

}  // namespace

namespace egress {

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

}  // namespace egress

using egress::close_tls;

Result<std::shared_ptr<asio::ssl::context>> EgressProxy::Impl::leaf_context(
    const std::string& host) {
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
  if (!ec) ctx->use_private_key(asio::buffer(opt.ca->leaf_key_pem()), asio::ssl::context::pem, ec);
  if (ec) return fail("leaf certificate for {}: {}", h, ec.message());
  leaves[h] = ctx;
  return ctx;
}

EgressProxy::Impl::Prepared EgressProxy::Impl::prepare(const Request& r, const std::string& data,
                                                       size_t head_len, bool keep_alive) {
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

awaitable<std::shared_ptr<UpstreamTls>> EgressProxy::Impl::open_bound(const Request& r,
                                                                      std::string& why) {
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

template <class Client>
awaitable<bool> EgressProxy::Impl::bound_session(std::shared_ptr<Client>& client, Request& r,
                                                 const std::string& data, size_t head_len,
                                                 const EgressDecision& d, bool via_connect) {
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
// The plain-HTTP path's (egress_proxy.cc); the terminated TLS's is instantiated by its use below.
template awaitable<bool> EgressProxy::Impl::bound_session<Local::socket>(
    std::shared_ptr<Local::socket>&, egress::Request&, const std::string&, size_t,
    const EgressDecision&, bool);

awaitable<EgressProxy::Impl::Relayed> EgressProxy::Impl::relay_response(UpstreamTls& up,
                                                                        beast::flat_buffer& buf,
                                                                        ClientTls& client,
                                                                        bool head_request) {
  for (bool first = true;; first = false) {
    http::response_parser<http::buffer_body> p;
    p.header_limit(64 * 1024);  // real services' heads (CSP, cookies) pass 8 KiB
    p.body_limit(std::numeric_limits<std::uint64_t>::max());
    if (head_request) p.skip(true);
    error_code ec;
    co_await http::async_read_header(up, buf, p, asio::redirect_error(asio::use_awaitable, ec));
    if (ec)
      co_return first && !p.got_some() && buf.size() == 0 ? Relayed::nothing : Relayed::broken;
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

awaitable<EgressProxy::Impl::Relayed> EgressProxy::Impl::exchange(
    std::shared_ptr<ClientTls>& client, KeptUpstream& up, Request& r, std::string& in,
    size_t head_len, uint64_t body, const EgressDecision& d) {
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
        size_t n = co_await client->async_read_some(asio::buffer(buf),
                                                    asio::redirect_error(asio::use_awaitable, ec));
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

awaitable<void> EgressProxy::Impl::intercept(std::shared_ptr<Local::socket>& client, Request& r,
                                             const std::string& data, size_t head_len,
                                             const EgressDecision& d) {
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
    size_t n = co_await asio::async_read_until(*tls, asio::dynamic_buffer(in, kMaxHead), "\r\n\r\n",
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

}  // namespace aw
