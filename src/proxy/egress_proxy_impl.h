// The egress proxy's state and coroutines (EgressProxy::Impl, egress_proxy.h), shared by its two
// halves: each connection's allowlist, routing and plain tunnel (egress_proxy.cc), and the path
// to a host an injection rule binds, with the TLS the proxy terminates for a CONNECT to it
// (egress_inject.cc). Internal to src/proxy. No type here is file-local: GCC makes each member
// coroutine's frame a class with external linkage, which may hold none (-Wsubobject-linkage).
#pragma once

#include <openssl/ssl.h>

#include <utility>  // first: Boost 1.74's awaitable.hpp uses std::exchange without including it

#include <fmt/format.h>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "net/tls_client.h"
#include "proxy/egress_policy.h"
#include "proxy/egress_proxy.h"
#include "proxy/egress_request.h"

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

namespace egress {

// Half-closing each kind of stream the proxy relays: a plain socket says so at once; a TLS
// stream's end is the upstream's to close (the request said Connection: close); the phase's
// terminated TLS ends with a close_notify (close_tls), then its socket's half-close.
inline void half_close(Local::socket& s) {
  error_code ignored;
  s.shutdown(asio::socket_base::shutdown_send, ignored);
}
inline void half_close(tcp::socket& s) {
  error_code ignored;
  s.shutdown(asio::socket_base::shutdown_send, ignored);
}
inline void half_close(UpstreamTls&) {}

// The end of the phase's terminated TLS (egress_inject.cc).
awaitable<void> close_tls(ClientTls& s);

}  // namespace egress

struct EgressProxy::Impl {
  using Request = egress::Request;

  EgressProxyOptions opt;
  asio::io_context io;
  Local::acceptor acceptor{io};
  std::thread thread;
  std::shared_ptr<asio::ssl::context> tls;  // for bound hosts; made when a rule exists
  // Server contexts for the phase's side of a CONNECT to a bound host, one per host (made at its
  // first CONNECT: a leaf costs a signature). Only the proxy's thread touches this.
  std::map<std::string, std::shared_ptr<asio::ssl::context>> leaves;

  // The phase's side of a CONNECT to a bound host: a server context with a leaf the unit's CA
  // issues for host, made at its first CONNECT (egress_inject.cc).
  Result<std::shared_ptr<asio::ssl::context>> leaf_context(const std::string& host);

  // injected: the names of the secrets added to this request (never their values).
  void log(const Request& r, const EgressDecision& d,
           const std::vector<std::string>& injected = {});

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
                                         std::string& why);

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
        egress::half_close(to->next_layer());
        co_return;
      }
      co_await egress::close_tls(*to);
    } else {
      egress::half_close(*to);
    }
  }

  // What a request to a bound host becomes upstream: its head with the matching rules' headers set
  // by the proxy and the phase's own copies of them dropped, or why it is refused.
  struct Prepared {
    std::string head;
    std::vector<std::string> names;  // the secrets added (never their values)
    std::optional<EgressDecision> refused;
  };
  Prepared prepare(const Request& r, const std::string& data, size_t head_len, bool keep_alive);

  // A verified TLS connection to the bound host r names, or null with why (a refusal's rule).
  awaitable<std::shared_ptr<UpstreamTls>> open_bound(const Request& r, std::string& why);

  // A request to a host an injection rule binds, read in clear (plain HTTP to the proxy, or the
  // last request of a terminated TLS connection): sent over verified TLS as prepare() makes it,
  // with Connection: close upstream, then relayed both ways as it comes. Each request is matched
  // against the rules, and a redirect elsewhere is a new request to another host, which no rule of
  // this one reaches. True when the relay started (it owns the connections' ends from there).
  template <class Client>
  awaitable<bool> bound_session(std::shared_ptr<Client>& client, Request& r,
                                const std::string& data, size_t head_len, const EgressDecision& d,
                                bool via_connect);  // for Local::socket and ClientTls only

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
                                           ClientTls& client, bool head_request);

  // One request of a kept-alive terminated TLS connection, already checked as intercept checks
  // every request: prepared (its own rules, its own secrets), sent on over the kept upstream
  // connection (opened, or reopened once when the server had closed it while idle and the request
  // has no body to resend), its body of exactly body bytes after it, and its answer relayed back.
  // in holds what was read from the phase; the request's bytes are taken from it.
  awaitable<Relayed> exchange(std::shared_ptr<ClientTls>& client, KeptUpstream& up, Request& r,
                              std::string& in, size_t head_len, uint64_t body,
                              const EgressDecision& d);

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
                            const std::string& data, size_t head_len, const EgressDecision& d);

  // One connection from the phase: its request head read and checked against the allowlist and
  // the placeholders, then a plain tunnel or plain HTTP, or the bound hosts' path.
  awaitable<void> session(Local::socket sock);

  awaitable<void> accept_loop();
};

}  // namespace aw
