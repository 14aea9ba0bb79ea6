// The inference proxy's server (Boost.Beast over Asio, C++20 coroutines, one thread). Requests
// are read whole (bodies are prompts: bounded); responses are relayed piece by piece as the
// upstream sends them, re-framed as chunked when the upstream gave no length, and read for the
// reported usage on the way. Errors are error_codes, never exceptions; a connection that
// misbehaves is closed.
#include "isolate/proxy/inference_proxy.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <limits>
#include <thread>
#include <type_traits>

#include "isolate/proxy/inference_tokens.h"
#include "isolate/proxy/inference_usage.h"
#include "isolate/proxy/inference_wire.h"
#include "net/tls_client.h"

namespace aw {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::awaitable;
using boost::system::error_code;
using Client = asio::generic::stream_protocol::socket;
using Local = asio::local::stream_protocol;
using tcp = asio::ip::tcp;
using Request = http::request<http::string_body>;

namespace {

constexpr size_t kMaxHead = 65536;
constexpr uint64_t kMaxBody = 64ull << 20;
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

  // What goes upstream: the agent's request with its credentials and hop-by-hop headers taken
  // out, the real credential and the upstream's Host set, the path under the upstream's base.
  Request upstream_request(Request& req) {
    Request out;
    if (req.method() == http::verb::unknown)
      out.method_string(req.method_string());
    else
      out.method(req.method());
    out.target(up.base_path + std::string(req.target()));
    out.version(11);
    for (const auto& f : req)
      if (!drop_request_header(sv(f.name_string()))) out.insert(f.name_string(), f.value());
    out.set(http::field::host, up.host_header);
    auto [name, value] = credential_header(opt.api, opt.credential);
    out.set(name, value);
    if (opt.api == "anthropic" && name == "authorization") {
      // An OAuth token is accepted by the API only with its beta flag, which a CLI given a run
      // token as its API key does not send.
      std::string beta(out["anthropic-beta"]);
      if (beta.find("oauth-2025-04-20") == std::string::npos)
        out.set("anthropic-beta", beta.empty() ? "oauth-2025-04-20" : beta + ",oauth-2025-04-20");
    }
    out.set(http::field::accept_encoding, "identity");  // the usage must stay readable
    out.set(http::field::connection, "close");
    out.body() = std::move(req.body());
    out.prepare_payload();
    return out;
  }

  // Send the request and relay the response. -1: nothing reached the client (why says what
  // failed; the caller answers 502); 0: done, close; 1: done, keep the connection.
  template <class Stream>
  awaitable<int> exchange(Stream& s, Client& client, Request& out, const std::string& token,
                          InferenceLogEntry& e, bool keep, bool head, unsigned version,
                          std::string& why) {
    error_code ec;
    beast::get_lowest_layer(s).expires_after(kIdle);
    co_await http::async_write(s, out, on(ec));
    if (ec) {
      why = "sending the request: " + ec.message();
      co_return -1;
    }
    beast::flat_buffer ubuf;
    http::response_parser<http::buffer_body> rp;
    rp.header_limit(kMaxHead);
    // No limit on what streams through (boost::none would be it, but Beast 1.74 compares a
    // Content-Length against none as "exceeded").
    rp.body_limit(std::numeric_limits<uint64_t>::max());
    if (head) rp.skip(true);
    co_await http::async_read_header(s, ubuf, rp, on(ec));
    if (ec) {
      why = "reading the response: " + ec.message();
      co_return -1;
    }
    auto& res = rp.get();
    int status = static_cast<int>(res.result_int());
    e.status = e.upstream_status = status;
    bool bodyless = head || status / 100 == 1 || status == 204 || status == 304;
    bool has_length = rp.content_length().has_value();
    bool chunked = !bodyless && !has_length && version >= 11;
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
    co_await asio::async_write(client, asio::buffer(headtext), on(ec));
    UsageMeter meter{sv(res[http::field::content_type])};
    bool complete = bodyless || rp.is_done();
    std::array<char, 16384> chunk;
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
        std::string size_line = fmt::format("{:x}\r\n", n);
        std::array<asio::const_buffer, 3> framed = {
            asio::buffer(size_line), asio::buffer(chunk.data(), n), asio::buffer(crlf)};
        if (chunked)
          co_await asio::async_write(client, framed, on(ec));
        else
          co_await asio::async_write(client, asio::buffer(chunk.data(), n), on(ec));
      }
      complete = rp.is_done() || (rec && closed_cleanly(rec) && !has_length && !rp.chunked());
      if (rec && !complete) break;  // the upstream broke off: the client sees a cut response
    }
    if (complete && chunked && !ec) {
      static const std::string last = "0\r\n\r\n";
      co_await asio::async_write(client, asio::buffer(last), on(ec));
    }
    meter.finish();
    e.tokens_in = meter.input_tokens();
    e.tokens_out = meter.output_tokens();
    book.add_tokens(token, e.tokens_in, e.tokens_out);
    log(e);
    co_return complete && !ec && keep ? 1 : 0;
  }

  awaitable<bool> forward(Client& client, Request& req, const std::string& token,
                          InferenceLogEntry& e, bool keep) {
    Request out = upstream_request(req);
    bool head = req.method() == http::verb::head;
    unsigned version = req.version();
    std::string why;
    int done = -1;
    if (up.tls) {
      UpstreamTls s(io, *tls);
      why = co_await connect_upstream(beast::get_lowest_layer(s), up, opt.static_hosts);
      if (why.empty()) why = co_await tls_handshake(s, up);
      if (why.empty()) done = co_await exchange(s, client, out, token, e, keep, head, version, why);
    } else {
      beast::tcp_stream s(io);
      why = co_await connect_upstream(s, up, opt.static_hosts);
      if (why.empty()) done = co_await exchange(s, client, out, token, e, keep, head, version, why);
    }
    if (done >= 0) co_return done == 1;
    std::string message = "awaywork: the inference upstream did not answer: " + why;
    co_return co_await refuse(client, 502, message, "upstream-unreachable", e, keep);
  }

  awaitable<bool> handle(Client& client, Request& req) {
    InferenceLogEntry e;
    e.method = std::string(req.method_string());
    std::string target(req.target());
    e.path = target.substr(0, target.find('?'));  // never the query string
    bool keep = req.keep_alive();
    if (req.method() == http::verb::connect || target.empty() || target[0] != '/') {
      std::string message =
          "awaywork: the inference proxy takes origin-form requests only (no CONNECT, no "
          "absolute URLs)";
      co_return co_await refuse(client, 400, message, "bad-target", e, false);
    }
    auto token = book.find_live(presented_tokens(req));
    if (!token) {
      std::string message =
          "awaywork: missing, wrong or revoked run token (send it as x-api-key or "
          "Authorization: Bearer)";
      co_return co_await refuse(client, 401, message, "run-token", e, keep);
    }
    if (!path_allowed(opt.allow_paths, e.path)) {
      std::string message = "awaywork: the inference proxy does not forward " + e.path;
      co_return co_await refuse(client, 404, message, "path", e, keep);
    }
    std::string spent = book.admit(*token, opt.max_requests, opt.budget_tokens);
    if (!spent.empty()) co_return co_await refuse(client, 403, spent, "budget", e, keep);
    co_return co_await forward(client, req, *token, e, keep);
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
      http::request_parser<http::string_body> p;
      p.header_limit(kMaxHead);
      p.body_limit(kMaxBody);
      error_code ec;
      co_await http::async_read_header(client, buf, p, on(ec));
      if (ec) break;  // closed, or not HTTP: nothing to answer
      if (beast::iequals(p.get()[http::field::expect], "100-continue")) {
        static const std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
        co_await asio::async_write(client, asio::buffer(cont), on(ec));
      }
      if (!ec && !p.is_done()) co_await http::async_read(client, buf, p, on(ec));
      if (ec == http::error::body_limit) {
        InferenceLogEntry e{std::string(p.get().method_string()), "", 0, 0, 0, 0, ""};
        std::string message = "awaywork: the request body is larger than the proxy takes";
        co_await refuse(client, 413, message, "body-limit", e, false);
      }
      if (ec) break;
      Request req = p.release();
      keep = co_await handle(client, req);
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

std::string InferenceProxy::issue_token() {
  return impl_->book.issue();
}

std::string InferenceProxy::issue_token_sharing(const std::string& shares_with) {
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
