// The inference proxy's server (Boost.Beast over Asio, C++20 coroutines, one thread). A request's
// head is read whole and checked; its body is relayed to the upstream piece by piece as the agent
// sends it (Content-Length or chunked, as the agent framed it), scanned on the way for its
// max_tokens (inference_body.h), and its last piece is held back until that many tokens are
// reserved against the budget: a request refused then never reaches the upstream complete, so it
// is never answered nor billed. Responses are relayed piece by piece as the upstream sends them,
// re-framed as chunked when the upstream gave no length, and read for the reported usage on the
// way. Upstream connections are kept alive in a small pool (upstream_pool.h). Errors are
// error_codes, never exceptions; a connection that misbehaves is closed.
#include "proxy/inference_proxy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <limits>
#include <thread>
#include <type_traits>

#include "net/tls_client.h"
#include "proxy/inference_body.h"
#include "proxy/inference_tokens.h"
#include "proxy/inference_usage.h"
#include "proxy/inference_wire.h"
#include "proxy/upstream_pool.h"

namespace aw {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using boost::system::error_code;
using Client = asio::generic::stream_protocol::socket;
using Local = asio::local::stream_protocol;
using tcp = asio::ip::tcp;
using Request = http::request<http::buffer_body>;
using Parser = http::request_parser<http::buffer_body>;

namespace {

constexpr size_t kMaxHead = 65536;
constexpr size_t kPiece = 16384;
constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();
constexpr auto kIdle = std::chrono::minutes(10);  // a model may think long between events

// Beast 1.74 has its own string_view.
std::string_view sv(beast::string_view s) {
  return {s.data(), s.size()};
}

auto on(error_code& ec) {
  return asio::redirect_error(asio::use_awaitable, ec);
}

// The run token from x-api-key or "Authorization: Bearer" (every one presented is tried).
std::vector<std::string> presented_tokens(const Request& req) {
  std::vector<std::string> out;
  for (const auto& f : req) {
    std::string_view value = sv(f.value());
    if (f.name() == http::field::authorization) {
      if (value.size() > 7 && beast::iequals(f.value().substr(0, 7), "bearer "))
        out.emplace_back(value.substr(7));
    } else if (beast::iequals(f.name_string(), "x-api-key")) {
      out.emplace_back(value);
    }
  }
  return out;
}

// The end of a body the upstream delimits by closing (TLS peers often close without notify).
bool closed_cleanly(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::ssl::error::stream_truncated;
}

// Cancels what the client socket is waiting for once `after` has passed, unless destroyed first:
// a silent agent does not hold a connection (and its coroutine) forever.
class Deadline {
 public:
  Deadline(Client& client, std::chrono::milliseconds after)
      : timer_(client.get_executor()), armed_(std::make_shared<bool>(true)) {
    timer_.expires_after(after);
    timer_.async_wait([&client, armed = armed_](const error_code& ec) {
      if (!ec && *armed) client.cancel();
    });
  }
  ~Deadline() {
    *armed_ = false;
    timer_.cancel();
  }

 private:
  asio::steady_timer timer_;
  std::shared_ptr<bool> armed_;
};

std::string chunk_line(size_t n) {
  return fmt::format("{:x}\r\n", n);
}

}  // namespace

struct InferenceProxy::Impl {
  InferenceProxyOptions opt;
  UpstreamUrl up;
  std::shared_ptr<asio::ssl::context> tls;
  TokenBook book;
  asio::io_context io;
  Local::acceptor unix_acceptor{io};
  tcp::acceptor tcp_acceptor{io};
  uint16_t port = 0;
  std::thread thread;
  std::unique_ptr<UpstreamPool<UpstreamTls>> tls_pool;
  std::unique_ptr<UpstreamPool<beast::tcp_stream>> plain_pool;

  // What one request carries through the steps of forwarding it.
  struct Exchange {
    Client& client;
    beast::flat_buffer& buf;  // the client's bytes read ahead of the parser
    Parser& p;
    std::string token;
    InferenceLogEntry e;
    bool keep;
    uint64_t reserved = 0;
    bool body_sent = false;  // the whole request reached the upstream: it may be answered
  };

  std::string too_large() const {
    return fmt::format("awaywork: the request body is larger than the proxy takes ({} bytes)",
                       opt.max_body_bytes);
  }

  void log(const InferenceLogEntry& e) {
    if (opt.log) opt.log(inference_log_line(e));
  }

  // Answer with the provider's error shape; returns whether the connection stays open.
  // rule is a literal: GCC 12 destroys temporaries of a co_await expression twice, so callers
  // pass named strings or literals only.
  awaitable<bool> refuse(Client& client, int status, const std::string& message, const char* rule,
                         InferenceLogEntry& e, bool keep) {
    std::string body = provider_error_body(opt.api, status, message);
    std::string resp = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
        "X-Awaywork-Refused: {}\r\nConnection: {}\r\n\r\n{}",
        status, sv(http::obsolete_reason(http::int_to_status(status))), body.size(), rule,
        keep ? "keep-alive" : "close", body);
    error_code ec;
    co_await asio::async_write(client, asio::buffer(resp), on(ec));
    e.status = status;
    e.refused = rule;
    log(e);
    co_return keep && !ec;
  }

  // Read the next piece of the agent's body into piece; its size, 0 at the end. ec set on a
  // timeout, a broken connection or a body past max_body_bytes (http::error::body_limit).
  awaitable<size_t> read_piece(Exchange& x, std::array<char, kPiece>& piece, error_code& ec) {
    if (x.p.is_done()) co_return 0;
    x.p.get().body().data = piece.data();
    x.p.get().body().size = piece.size();
    Deadline deadline(x.client, opt.header_timeout);
    co_await http::async_read_some(x.client, x.buf, x.p, on(ec));
    if (ec == http::error::need_buffer) ec = {};
    co_return piece.size() - x.p.get().body().size;
  }

  // A refused request's body is read and dropped so that the connection can take the next one.
  awaitable<bool> drain(Exchange& x) {
    std::array<char, kPiece> piece;
    error_code ec;
    while (!ec && !x.p.is_done()) co_await read_piece(x, piece, ec);
    co_return !ec;
  }

  // The request line and headers for the upstream: the agent's with its credentials and
  // hop-by-hop headers taken out, the real credential and the upstream's Host set, the path
  // under the upstream's base, the body framed as the agent framed it.
  std::string upstream_head(const Request& req, const Parser& p) {
    std::string h = fmt::format("{} {}{} HTTP/1.1\r\n", sv(req.method_string()), up.base_path,
                                sv(req.target()));
    auto [name, value] = credential_header(opt.api, opt.credential);
    std::string beta(req["anthropic-beta"]);
    // An OAuth token is accepted by the API only with its beta flag, which a CLI given a run
    // token as its API key does not send.
    bool add_beta = opt.api == "anthropic" && name == "authorization" &&
                    beta.find("oauth-2025-04-20") == std::string::npos;
    for (const auto& f : req) {
      std::string_view n = sv(f.name_string());
      if (drop_request_header(n) || (add_beta && beast::iequals(f.name_string(), "anthropic-beta")))
        continue;
      h += fmt::format("{}: {}\r\n", n, sv(f.value()));
    }
    if (add_beta)
      h += "anthropic-beta: " + (beta.empty() ? "" : beta + ",") + "oauth-2025-04-20\r\n";
    h += fmt::format("Host: {}\r\n{}: {}\r\n", up.host_header, name, value);
    h += "Accept-Encoding: identity\r\nConnection: keep-alive\r\n";  // usage must stay readable
    if (p.content_length())
      h += fmt::format("Content-Length: {}\r\n", *p.content_length());
    else if (p.chunked())
      h += "Transfer-Encoding: chunked\r\n";
    return h + "\r\n";
  }

  // Relay the agent's body to the upstream as it arrives. The budget is reserved before the last
  // piece goes, when the body (and its max_tokens) is known. Returns false when the request was
  // answered here (413, 403) or broke; the upstream connection is then not reused.
  template <class Stream>
  awaitable<bool> send_body(Stream& s, Exchange& x, bool& answered) {
    std::array<char, kPiece> piece;
    BodyScanner scan;
    uint64_t total = 0;
    bool chunked = x.p.chunked();
    error_code ec, uec;
    for (;;) {
      size_t n = co_await read_piece(x, piece, ec);
      if (ec == http::error::body_limit) {
        std::string message = too_large();
        x.keep = co_await refuse(x.client, 413, message, "body-limit", x.e, false);
        answered = true;
      }
      if (ec) co_return false;
      scan.feed(std::string_view(piece.data(), n));
      total += n;
      bool last = x.p.is_done();
      if (last && !(co_await reserve(x, scan, total, answered))) co_return false;
      std::string size_line = chunk_line(n);
      static const std::string crlf = "\r\n", end = "0\r\n\r\n";
      if (n > 0 && chunked) {
        std::array<asio::const_buffer, 3> framed = {
            asio::buffer(size_line), asio::buffer(piece.data(), n), asio::buffer(crlf)};
        co_await asio::async_write(s, framed, on(uec));
      } else if (n > 0) {
        co_await asio::async_write(s, asio::buffer(piece.data(), n), on(uec));
      }
      if (!uec && last && chunked) co_await asio::async_write(s, asio::buffer(end), on(uec));
      if (uec) co_return false;
      if (last) break;
    }
    x.body_sent = true;
    co_return true;
  }

  awaitable<bool> reserve(Exchange& x, const BodyScanner& scan, uint64_t body_bytes,
                          bool& answered) {
    std::string why = scan.refused();
    if (why.empty() && opt.budget_tokens > 0) {
      // Input tokens are bounded by the body's bytes (a text token covers at least one byte);
      // the output by max_tokens, which the upstream enforces.
      uint64_t want = body_bytes == 0 ? 0 : scan.max_tokens().value_or(opt.default_reserve_tokens);
      want = want > kNoLimit - body_bytes ? kNoLimit : want + body_bytes;
      why = book.reserve(x.token, want, opt.budget_tokens);
      if (why.empty()) x.reserved = want;
    }
    if (why.empty()) co_return true;
    const char* rule = scan.refused().empty() ? "budget" : "bad-body";
    x.keep = co_await refuse(x.client, scan.refused().empty() ? 403 : 400, why, rule, x.e, x.keep);
    answered = true;
    co_return false;
  }

  // Relay the response. -1: nothing reached the client (why says what failed; the caller answers
  // 502); 0: done, close; 1: done, keep the connection. reusable: the upstream keeps it too.
  template <class Stream>
  awaitable<int> relay(Stream& s, Exchange& x, bool& reusable, std::string& why) {
    error_code ec;
    bool keep = x.keep;
    bool head = x.p.get().method() == http::verb::head;
    beast::flat_buffer ubuf;
    http::response_parser<http::buffer_body> rp;
    rp.header_limit(kMaxHead);
    // No limit on what streams through (boost::none would be it, but Beast 1.74 compares a
    // Content-Length against none as "exceeded").
    rp.body_limit(std::numeric_limits<uint64_t>::max());
    if (head) rp.skip(true);
    beast::get_lowest_layer(s).expires_after(kIdle);
    co_await http::async_read_header(s, ubuf, rp, on(ec));
    if (ec) {
      why = "reading the response: " + ec.message();
      co_return -1;
    }
    auto& res = rp.get();
    int status = static_cast<int>(res.result_int());
    x.e.status = x.e.upstream_status = status;
    bool bodyless = head || status / 100 == 1 || status == 204 || status == 304;
    bool has_length = rp.content_length().has_value();
    bool chunked = !bodyless && !has_length && x.p.get().version() >= 11;
    if (!bodyless && !has_length && !chunked) keep = false;  // an HTTP/1.0 client: close ends it
    std::string reason(res.reason());
    if (reason.empty()) reason = std::string(http::obsolete_reason(res.result()));
    std::string headtext = fmt::format("HTTP/1.1 {} {}\r\n", status, reason);
    for (const auto& f : res)
      if (!drop_response_header(sv(f.name_string())))
        headtext += fmt::format("{}: {}\r\n", sv(f.name_string()), sv(f.value()));
    if (has_length) headtext += fmt::format("Content-Length: {}\r\n", *rp.content_length());
    if (chunked) headtext += "Transfer-Encoding: chunked\r\n";
    headtext += keep ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    co_await asio::async_write(x.client, asio::buffer(headtext), on(ec));
    UsageMeter meter{sv(res[http::field::content_type])};
    bool complete = bodyless || rp.is_done();
    std::array<char, kPiece> chunk;
    static const std::string crlf = "\r\n";
    while (!ec && !complete) {
      rp.get().body().data = chunk.data();
      rp.get().body().size = chunk.size();
      error_code rec;
      beast::get_lowest_layer(s).expires_after(kIdle);
      co_await http::async_read_some(s, ubuf, rp, on(rec));
      if (rec == http::error::need_buffer) rec = {};
      size_t n = chunk.size() - rp.get().body().size;
      if (n > 0) {
        meter.feed(std::string_view(chunk.data(), n));
        std::string size_line = chunk_line(n);
        std::array<asio::const_buffer, 3> framed = {
            asio::buffer(size_line), asio::buffer(chunk.data(), n), asio::buffer(crlf)};
        if (chunked)
          co_await asio::async_write(x.client, framed, on(ec));
        else
          co_await asio::async_write(x.client, asio::buffer(chunk.data(), n), on(ec));
      }
      complete = rp.is_done() || (rec && closed_cleanly(rec) && !has_length && !rp.chunked());
      if (rec && !complete) break;  // the upstream broke off: the client sees a cut response
    }
    if (complete && chunked && !ec) {
      static const std::string last = "0\r\n\r\n";
      co_await asio::async_write(x.client, asio::buffer(last), on(ec));
    }
    meter.finish();
    x.e.tokens_in = meter.input_tokens();
    x.e.tokens_out = meter.output_tokens();
    uint64_t in = x.e.tokens_in, out = x.e.tokens_out;
    // A cut response may have cost what was reserved without saying so: count the reservation.
    if (!complete && in + out < x.reserved) out = x.reserved - in;
    book.settle(x.token, x.reserved, in, out);
    x.reserved = 0;
    log(x.e);
    reusable = complete && !ec && res.keep_alive() && (bodyless || has_length || rp.chunked()) &&
               ubuf.size() == 0;
    co_return complete && !ec && keep ? 1 : 0;
  }

  // The head and the body's pieces are separate writes: without this, Nagle holds the body
  // behind the head's ACK (a delayed ACK: milliseconds per request).
  static void no_delay(beast::tcp_stream& s) {
    error_code ignored;
    s.socket().set_option(tcp::no_delay(true), ignored);
  }

  awaitable<std::string> open(std::unique_ptr<UpstreamTls>& s) {
    s = std::make_unique<UpstreamTls>(io, *tls);
    std::string why = co_await connect_upstream(beast::get_lowest_layer(*s), up, opt.static_hosts);
    no_delay(beast::get_lowest_layer(*s));
    if (why.empty()) why = co_await tls_handshake(*s, up);
    co_return why;
  }

  awaitable<std::string> open(std::unique_ptr<beast::tcp_stream>& s) {
    s = std::make_unique<beast::tcp_stream>(io);
    std::string why = co_await connect_upstream(*s, up, opt.static_hosts);
    no_delay(*s);
    co_return why;
  }

  // One request over a pooled connection or a fresh one. A pooled connection is checked before
  // use (upstream_pool.h); one that still fails while the head is written (the upstream closed it
  // in that instant) is replaced once by a fresh one, since nothing of the body has been taken
  // from the agent yet. Once any of the body went, a failure is answered 502 and never retried:
  // the upstream may have the whole request and be answering it (a model request must not run
  // twice).
  template <class Stream>
  awaitable<bool> forward_on(UpstreamPool<Stream>& pool, Exchange& x) {
    std::string head = upstream_head(x.p.get(), x.p), why;
    std::unique_ptr<Stream> s = pool.take();
    bool reused = s != nullptr;
    for (int attempt = 0; attempt < 2 && why.empty(); ++attempt) {
      if (!s) why = co_await open(s);
      if (!why.empty()) break;
      error_code ec;
      beast::get_lowest_layer(*s).expires_after(kIdle);
      co_await asio::async_write(*s, asio::buffer(head), on(ec));
      if (!ec) break;
      why = "sending the request: " + ec.message();
      if (reused && attempt == 0) why.clear(), s.reset(), reused = false;
    }
    bool answered = false;
    if (why.empty() && !(co_await send_body(*s, x, answered))) {
      why = "sending the request body";
      if (answered) {
        book.settle(x.token, x.reserved, 0, 0);
        co_return x.keep;
      }
    }
    int done = -1;
    bool reusable = false;
    if (why.empty()) done = co_await relay(*s, x, reusable, why);
    if (reusable) pool.put(std::move(s));
    if (done >= 0) co_return done == 1;
    book.settle(x.token, x.reserved, 0, x.body_sent ? x.reserved : 0);
    std::string message = "awaywork: the inference upstream did not answer: " + why;
    bool keep = x.keep && x.p.is_done();
    co_return co_await refuse(x.client, 502, message, "upstream-unreachable", x.e, keep);
  }

  awaitable<bool> handle(Client& client, beast::flat_buffer& buf, Parser& p) {
    Request& req = p.get();
    Exchange x{client, buf, p, "", {}, req.keep_alive()};
    x.e.method = std::string(req.method_string());
    std::string target(req.target());
    x.e.path = target.substr(0, target.find('?'));  // never the query string
    if (req.method() == http::verb::connect || target.empty() || target[0] != '/') {
      std::string message =
          "awaywork: the inference proxy takes origin-form requests only (no CONNECT, no "
          "absolute URLs)";
      co_return co_await refuse(client, 400, message, "bad-target", x.e, false);
    }
    auto token = book.find_live(presented_tokens(req));
    std::string message;
    const char* rule = nullptr;
    int status = 0;
    if (!token) {
      message =
          "awaywork: missing, wrong or revoked run token (send it as x-api-key or "
          "Authorization: Bearer)";
      status = 401, rule = "run-token";
    } else if (!path_allowed(opt.allow_paths, x.e.path)) {
      message = "awaywork: the inference proxy does not forward " + x.e.path;
      status = 404, rule = "path";
    } else {
      message = book.admit(*token, opt.max_requests, opt.budget_tokens);
      if (!message.empty()) status = 403, rule = "budget";
    }
    if (rule) {
      bool keep = x.keep && (co_await drain(x));
      co_return co_await refuse(client, status, message, rule, x.e, keep);
    }
    x.token = *token;
    if (up.tls) co_return co_await forward_on(*tls_pool, x);
    co_return co_await forward_on(*plain_pool, x);
  }

  awaitable<void> session(Client client) {
    try {
      co_await serve(client);
    } catch (...) {  // a library's throw (allocation...) ends this connection, not the proxy
    }
    error_code ignored;
    client.shutdown(asio::socket_base::shutdown_both, ignored);
  }

  awaitable<void> serve(Client& client) {
    beast::flat_buffer buf;
    for (bool keep = true; keep;) {
      Parser p;
      p.header_limit(kMaxHead);
      p.body_limit(opt.max_body_bytes);
      error_code ec;
      if (buf.size() == 0) {  // between requests: silent for client_idle, closed
        Deadline idle(client, opt.client_idle);
        co_await client.async_wait(asio::socket_base::wait_read, on(ec));
      }
      if (!ec) {
        Deadline deadline(client, opt.header_timeout);
        co_await http::async_read_header(client, buf, p, on(ec));
      }
      if (ec == http::error::body_limit) {  // its Content-Length says it is too large
        InferenceLogEntry e{std::string(p.get().method_string()), "", 0, 0, 0, 0, ""};
        std::string message = too_large();
        co_await refuse(client, 413, message, "body-limit", e, false);
      }
      if (ec) break;  // closed, silent, or not HTTP: nothing to answer
      if (beast::iequals(p.get()[http::field::expect], "100-continue")) {
        static const std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
        co_await asio::async_write(client, asio::buffer(cont), on(ec));
      }
      if (ec) break;
      keep = co_await handle(client, buf, p);
    }
  }

  template <class Acceptor>
  awaitable<void> accept_loop(Acceptor& acceptor) {
    for (;;) {
      error_code ec;
      auto s = co_await acceptor.async_accept(on(ec));
      if (ec == asio::error::operation_aborted) co_return;
      if (ec) continue;
      // Events are small writes: without this, Nagle holds each behind the last one's ACK.
      if constexpr (std::is_same_v<Acceptor, tcp::acceptor>) s.set_option(tcp::no_delay(true), ec);
      // One session type for both listeners: the socket as a generic stream socket.
      auto protocol = s.local_endpoint(ec).protocol();
      if (ec) continue;
      auto fd = s.release(ec);
      if (ec) continue;
      Client generic(io);
      generic.assign(asio::generic::stream_protocol(protocol.family(), protocol.protocol()), fd,
                     ec);
      if (ec) {
        ::close(fd);
        continue;
      }
      asio::co_spawn(io, session(std::move(generic)), asio::detached);
    }
  }

  Status listen() {
    error_code ec;
    if (!opt.socket_path.empty()) {
      ::unlink(opt.socket_path.c_str());
      unix_acceptor.open(Local(), ec);
      mode_t old = ::umask(0177);
      if (!ec) unix_acceptor.bind(Local::endpoint(opt.socket_path), ec);
      ::umask(old);
      if (!ec) unix_acceptor.listen(128, ec);
      if (ec) return fail("inference proxy: listen on {}: {}", opt.socket_path, ec.message());
      asio::co_spawn(io, accept_loop(unix_acceptor), asio::detached);
    }
    if (opt.tcp_loopback) {
      tcp::endpoint ep(asio::ip::address_v4::loopback(), 0);
      tcp_acceptor.open(ep.protocol(), ec);
      if (!ec) tcp_acceptor.bind(ep, ec);
      if (!ec) tcp_acceptor.listen(128, ec);
      if (!ec) port = tcp_acceptor.local_endpoint(ec).port();
      if (ec) return fail("inference proxy: listen on 127.0.0.1: {}", ec.message());
      asio::co_spawn(io, accept_loop(tcp_acceptor), asio::detached);
    }
    if (opt.socket_path.empty() && !opt.tcp_loopback)
      return fail("inference proxy: neither a socket path nor tcp_loopback to listen on");
    return {};
  }
};

InferenceProxy::InferenceProxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<InferenceProxy>> InferenceProxy::start(InferenceProxyOptions options) {
  if (options.api != "anthropic" && options.api != "openai")
    return fail("inference proxy: api '{}' is neither anthropic nor openai", options.api);
  if (options.credential.empty()) return fail("inference proxy: no credential to forward with");
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  AW_TRY(impl->up,
         with_context(parse_upstream(impl->opt.upstream, impl->opt.static_hosts), "inference"));
  if (impl->up.tls) {
    AW_TRY(impl->tls, with_context(make_tls_context(impl->opt.ca_file), "inference proxy"));
  }
  impl->tls_pool =
      std::make_unique<UpstreamPool<UpstreamTls>>(impl->opt.upstream_pool, impl->opt.upstream_idle);
  impl->plain_pool = std::make_unique<UpstreamPool<beast::tcp_stream>>(impl->opt.upstream_pool,
                                                                       impl->opt.upstream_idle);
  AW_CHECK(impl->listen());
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    for (;;) {
      try {
        raw->io.run();
        return;        // stopped
      } catch (...) {  // nothing may escape the proxy thread, nor stop it serving
      }
    }
  });
  return std::unique_ptr<InferenceProxy>(new InferenceProxy(std::move(impl)));
}

InferenceProxy::~InferenceProxy() {
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (!impl_->opt.socket_path.empty()) ::unlink(impl_->opt.socket_path.c_str());
}

Result<std::string> InferenceProxy::issue_token() {
  return impl_->book.issue();
}

Result<std::string> InferenceProxy::issue_token_sharing(const std::string& shares_with) {
  return impl_->book.issue(shares_with);
}

void InferenceProxy::revoke(const std::string& token) {
  impl_->book.revoke(token);
}

InferenceUsage InferenceProxy::usage(const std::string& token) const {
  return impl_->book.usage(token);
}

uint16_t InferenceProxy::tcp_port() const {
  return impl_->port;
}

const std::string& InferenceProxy::socket_path() const {
  return impl_->opt.socket_path;
}

}  // namespace aw
