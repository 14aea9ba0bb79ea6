#include "serve/server.h"

#include <signal.h>

#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "serve/children.h"
#include "serve/server_internal.h"

namespace aw {

namespace {
// How long the units get on SIGINT/SIGTERM to record themselves before SIGKILL.
constexpr int kStopGraceMs = 10000;
}  // namespace

struct Server::Impl {
  Impl(const ServeOptions& o, std::string token, Api& api, Children& children)
      : pool(static_cast<size_t>(o.workers)),
        shared{o, std::move(token), 0, api, pool},
        children(children),
        acceptor(ioc),
        signals(ioc, SIGINT, SIGTERM, SIGHUP),
        sigchld(ioc, SIGCHLD) {}

  net::io_context ioc;
  net::thread_pool pool;
  ServerShared shared;
  Children& children;
  tcp::acceptor acceptor;
  net::signal_set signals, sigchld;
  std::string bound_address;  // what the acceptor holds, read once bound
  // After SIGINT/SIGTERM: keeps the event loop running (a page following a unit sees it end)
  // while `stopper` stops the units; run() joins it before returning.
  std::optional<net::executor_work_guard<net::io_context::executor_type>> hold;
  std::thread stopper;

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket s) {
      if (ec == net::error::operation_aborted) return;
      if (!ec) {
        if (shared.connections.load() >= shared.opts.max_connections)
          turn_away(std::move(s));
        else
          serve_connection(std::move(s), shared);
      }
      accept();
    });
  }

  // Over the connection limit: a short answer, then closed.
  static void turn_away(tcp::socket s) {
    static const std::string kBody =
        "{\"error\":\"too many connections to awaywork serve; close some and retry\","
        "\"status\":503}\n";
    static const std::string kBusy = fmt::format(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Connection: close\r\nContent-Length: {}\r\n\r\n{}",
        kBody.size(), kBody);
    auto sock = std::make_shared<tcp::socket>(std::move(s));
    net::async_write(*sock, net::buffer(kBusy), [sock](beast::error_code, size_t) {
      beast::error_code ec;
      sock->shutdown(tcp::socket::shutdown_both, ec);
      sock->close(ec);
    });
  }

  void on_sigchld() {
    sigchld.async_wait([this](beast::error_code ec, int) {
      if (ec) return;
      children.reap();
      on_sigchld();
    });
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

int Server::port() const {
  return impl_->shared.port;
}

std::string Server::address() const {
  return impl_->bound_address;
}

Result<std::unique_ptr<Server>> Server::bind(const ServeOptions& opts, std::string token, Api& api,
                                             Children& children) {
  auto impl = std::make_unique<Impl>(opts, std::move(token), api, children);
  beast::error_code ec;
  auto addr = net::ip::make_address(opts.address, ec);
  if (ec) return fail("'{}' is not an IP address", opts.address);
  tcp::endpoint ep(addr, static_cast<unsigned short>(opts.port));
  auto& a = impl->acceptor;
  if (a.open(ep.protocol(), ec); ec) return fail("socket: {}", ec.message());
  a.set_option(net::socket_base::reuse_address(true), ec);
  if (a.bind(ep, ec); ec)
    return fail(
        "listen on {}:{}: {}; is another server on that port? --listen "
        "127.0.0.1:0 picks a free one",
        opts.address, opts.port, ec.message());
  if (a.listen(net::socket_base::max_listen_connections, ec); ec)
    return fail("listen: {}", ec.message());
  auto local = a.local_endpoint(ec);
  if (ec) return fail("listen on {}:{}: {}", opts.address, opts.port, ec.message());
  impl->shared.port = local.port();
  impl->bound_address = local.address().to_string();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

void Server::run() {
  Impl& s = *impl_;
  s.accept();
  s.on_sigchld();
  s.signals.async_wait([&s](beast::error_code ec, int sig) {
    if (ec) return;
    fmt::print(stderr,
               "serve: signal {}: stopping the units this server started (up to {} s for them "
               "to record themselves interrupted; a second signal kills them now)\n",
               sig, kStopGraceMs / 1000);
    beast::error_code ignored;
    s.acceptor.close(ignored);
    s.sigchld.cancel(ignored);
    // Each run records itself interrupted on SIGTERM. Without the guard the loop ran out of work
    // when no connection was open, and the process exited mid-wait: no grace, no SIGKILL, and a
    // detached thread left using a Children already destroyed. Then every live log reads once
    // more (so a stopped unit's log ends whole) and ends with its last chunk, not cut (a browser
    // takes a cut one for a broken download); a reader too slow to take it is not waited for long.
    s.hold.emplace(net::make_work_guard(s.ioc));
    s.stopper = std::thread([&s] {
      s.children.terminate_all(kStopGraceMs);
      s.shared.stopping = true;
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      while (s.shared.streams.load() > 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      s.ioc.stop();
    });
    s.signals.async_wait([&s](beast::error_code ec2, int) {
      if (ec2) return;
      fmt::print(stderr, "serve: second signal: killing the units now\n");
      s.children.hurry();
    });
  });
  std::thread second([&s] { s.ioc.run(); });
  s.ioc.run();
  second.join();
  // The stopper stops the loop once every unit has ended; without a signal, never.
  if (s.stopper.joinable()) s.stopper.join();
  s.pool.stop();
  s.pool.join();
}

bool is_loopback_address(const std::string& address) {
  beast::error_code ec;
  auto a = net::ip::make_address(address, ec);
  return !ec && ((a.is_v4() && a.to_v4() == net::ip::address_v4::loopback()) ||
                 (a.is_v6() && a.to_v6() == net::ip::address_v6::loopback()));
}

Result<ServeOptions> parse_listen(const std::string& listen, bool anywhere) {
  ServeOptions o;
  o.anywhere = anywhere;
  // An IPv6 address goes in brackets, its colons inside them: "[::1]" has no port though a
  // digit follows its last colon, and "::1:8080" could be read two ways.
  std::string host, port;
  bool split = false;
  if (!listen.empty() && listen.front() == '[') {
    size_t close = listen.find(']');
    if (close != std::string::npos && close + 1 < listen.size() && listen[close + 1] == ':') {
      host = listen.substr(1, close - 1);
      port = listen.substr(close + 2);
      split = true;
    }
  } else if (size_t colon = listen.find(':');
             colon != std::string::npos && colon == listen.rfind(':')) {
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
    split = true;
  }
  if (!split || port.empty())
    return fail(
        "--listen {}: give ADDRESS:PORT, like 127.0.0.1:8080 or [::1]:8080 (port 0 picks one)",
        listen);
  if (host == "localhost") host = "127.0.0.1";
  int p = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535)
    return fail("--listen {}: the port must be a number from 0 to 65535", listen);
  beast::error_code bad;
  net::ip::make_address(host, bad);
  if (bad)
    return fail(
        "--listen {}: '{}' is not an IP address (names other than localhost are not "
        "resolved)",
        listen, host);
  if (!is_loopback_address(host) && !anywhere)
    return fail(
        "--listen {}: awaywork serve listens on 127.0.0.1 or [::1] only: its API starts "
        "units. Give --listen-anywhere to listen on {} anyway (the token is still "
        "required)",
        listen, host);
  o.address = host;
  o.port = p;
  return o;
}

}  // namespace aw
