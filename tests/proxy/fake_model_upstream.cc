// The fake provider server: one thread accepts, one thread per connection serves its requests
// with blocking Beast calls and error codes.
#include "fake_model_upstream.h"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <set>
#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <fmt/format.h>

namespace aw::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using boost::system::error_code;

TestCert make_test_cert(const std::string& dir, const std::string& stem,
                        const std::vector<std::string>& dns_names) {
  TestCert c{dir + "/" + stem + ".crt", dir + "/" + stem + ".key"};
  std::string san;
  for (const auto& n : dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + n;
  std::string cmd = fmt::format(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN={} -addext subjectAltName={} -keyout {} -out {} >/dev/null 2>&1",
      dns_names.at(0), san, c.key, c.cert);
  if (std::system(cmd.c_str()) != 0) c = {};
  return c;
}

namespace {

std::string sse(const std::string& event, const std::string& data) {
  return "event: " + event + "\ndata: " + data + "\n\n";
}

std::vector<std::string> anthropic_events() {
  return {
      sse("message_start",
          R"({"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","content":[],"model":"fake","usage":{"input_tokens":25,"output_tokens":1}}})"),
      sse("content_block_start",
          R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})"),
      sse("content_block_delta",
          R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}})"),
      sse("content_block_stop", R"({"type":"content_block_stop","index":0})"),
      sse("message_delta",
          R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":17}})"),
      sse("message_stop", R"({"type":"message_stop"})"),
  };
}

std::vector<std::string> openai_events() {
  return {
      sse("response.created",
          R"({"type":"response.created","response":{"id":"resp_fake","status":"in_progress","usage":null}})"),
      sse("response.output_text.delta",
          R"({"type":"response.output_text.delta","item_id":"msg_fake","delta":"Hello"})"),
      sse("response.completed",
          R"({"type":"response.completed","response":{"id":"resp_fake","status":"completed","usage":{"input_tokens":40,"output_tokens":9,"total_tokens":49}}})"),
  };
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

struct FakeModelUpstream::Impl {
  FakeModelUpstream* owner = nullptr;
  Options options;
  asio::io_context io;
  std::unique_ptr<asio::ssl::context> tls;
  tcp::acceptor acceptor{io};
  std::thread accept_thread;
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  std::vector<Seen> seen;
  std::vector<std::thread> workers;
  std::set<int> open_fds;  // kept-alive connections, woken when the fake stops

  template <class Stream>
  void write(Stream& s, const std::string& data) {
    error_code ec;
    asio::write(s, asio::buffer(data), ec);
  }

  template <class Stream>
  void respond(Stream& s, const Seen& req, bool hold, bool keep) {
    const char* conn = keep ? "keep-alive" : "close";
    if (options.delay_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.delay_ms));
    std::string path = req.target.substr(0, req.target.find('?'));
    bool stream = req.body.find("\"stream\":true") != std::string::npos;
    bool messages = ends_with(path, "/v1/messages"), responses = ends_with(path, "/v1/responses");
    if (!messages && !responses && !options.redirect_to.empty() &&
        path.find("/redirect") != std::string::npos) {
      write(s, fmt::format("HTTP/1.1 302 Found\r\nLocation: {}\r\nContent-Length: 0\r\n"
                           "Connection: {}\r\n\r\n",
                           options.redirect_to, conn));
      return;
    }
    if (!messages && !responses && !options.auth.empty()) {
      bool ok = req.head.find("\r\nAuthorization: " + options.auth + "\r\n") != std::string::npos;
      std::string body = ok ? "private ok\n" : "401 no credential\n";
      write(s, fmt::format("HTTP/1.1 {}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n"
                           "Connection: {}\r\n\r\n{}",
                           ok ? "200 OK" : "401 Unauthorized", body.size(), conn, body));
      return;
    }
    if (!messages && !responses) {
      std::string body = R"({"type":"error","error":{"type":"not_found_error","message":"fake"}})";
      write(s, fmt::format("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                           "Content-Length: {}\r\nConnection: {}\r\n\r\n{}",
                           body.size(), conn, body));
      return;
    }
    if (!stream) {
      std::string body =
          messages
              ? R"({"id":"msg_fake","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"usage":{"input_tokens":11,"output_tokens":7}})"
              : R"({"id":"resp_fake","object":"response","status":"completed","usage":{"input_tokens":12,"output_tokens":5}})";
      write(s, fmt::format("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                           "Set-Cookie: fake=1\r\nContent-Length: {}\r\nConnection: {}\r\n\r\n{}",
                           body.size(), conn, body));
      return;
    }
    write(s, fmt::format(
                 "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                 "Transfer-Encoding: chunked\r\nConnection: {}\r\n\r\n",
                 conn));
    auto events = messages ? anthropic_events() : openai_events();
    for (size_t i = 0; i < events.size(); ++i) {
      if (hold && i + 1 == events.size()) {
        std::unique_lock<std::mutex> l(mu);
        cv.wait_for(l, std::chrono::seconds(30), [&] { return released; });
      }
      if (i + 1 == events.size()) owner->sent_last_ = true;
      write(s, fmt::format("{:x}\r\n{}\r\n", events[i].size(), events[i]));
    }
    write(s, "0\r\n\r\n");
  }

  // One request; false when the connection is done (closed, idle past idle_close_ms, or
  // "Connection: close").
  template <class Stream>
  bool serve_one(Stream& s, beast::flat_buffer& buf) {
    http::request_parser<http::string_body> p;
    p.body_limit(std::numeric_limits<uint64_t>::max());
    error_code ec;
    http::read_header(s, buf, p, ec);
    if (ec) return false;
    size_t counted = 0, total = 0;
    while (!p.is_done()) {  // piece by piece, so that a test sees a body arrive as it streams
      http::read_some(s, buf, p, ec);
      if (ec) return false;
      size_t now = p.get().body().size();
      body_bytes_in() += now - counted;
      total += now - counted;
      counted = now;
      if (now > (1u << 20)) {  // a big body is counted, not kept
        p.get().body().erase(0, now - (64u << 10));
        counted = 64u << 10;
      }
    }
    auto& req = p.get();
    Seen got;
    got.method = std::string(req.method_string());
    got.target = std::string(req.target());
    got.head = got.method + " " + got.target + "\r\n";
    for (const auto& f : req)
      got.head += std::string(f.name_string()) + ": " + std::string(f.value()) + "\r\n";
    got.body = req.body();
    got.body_size = total;
    bool hold = req["x-fake-hold"] == "1";
    {
      std::lock_guard<std::mutex> l(mu);
      seen.push_back(got);
    }
    respond(s, got, hold, req.keep_alive());
    return req.keep_alive();
  }

  std::atomic<size_t>& body_bytes_in() { return owner->body_bytes_in_; }

  template <class Stream>
  void serve(Stream& s, int fd) {
    beast::flat_buffer buf;
    for (bool first = true;; first = false) {
      // Asio's blocking reads wait in poll() themselves (no SO_RCVTIMEO): wait here instead,
      // between requests only (the first may already sit in the TLS engine's buffer, read
      // with the handshake's last bytes).
      pollfd p{fd, POLLIN, 0};
      if (!first && options.idle_close_ms > 0 && buf.size() == 0 &&
          ::poll(&p, 1, options.idle_close_ms) == 0)
        return;
      if (!serve_one(s, buf)) return;
    }
  }

  void connection(tcp::socket sock) {
    owner->connections_++;
    int fd = sock.native_handle();
    {
      std::lock_guard<std::mutex> l(mu);
      open_fds.insert(fd);
    }
    struct Forget {
      Impl* impl;
      int fd;
      ~Forget() {
        std::lock_guard<std::mutex> l(impl->mu);
        impl->open_fds.erase(fd);
      }
    } forget{this, fd};
    if (!tls) {
      serve(sock, fd);
      error_code ec;
      sock.shutdown(tcp::socket::shutdown_both, ec);
    } else {
      asio::ssl::stream<tcp::socket> s(std::move(sock), *tls);
      error_code ec;
      s.handshake(asio::ssl::stream_base::server, ec);
      if (ec) return;  // the proxy refused our certificate
      serve(s, fd);
      s.shutdown(ec);
    }
  }
};

FakeModelUpstream::FakeModelUpstream(TestCert cert, Options options)
    : impl_(std::make_unique<Impl>()) {
  impl_->owner = this;
  impl_->options = options;
  if (!cert.cert.empty()) {
    impl_->tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    impl_->tls->use_certificate_chain_file(cert.cert);
    impl_->tls->use_private_key_file(cert.key, asio::ssl::context::pem);
  }
  tcp::endpoint ep(asio::ip::address_v4::loopback(), 0);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
  port_ = impl_->acceptor.local_endpoint().port();
  Impl* impl = impl_.get();
  impl_->accept_thread = std::thread([impl] {
    for (;;) {
      error_code ec;
      tcp::socket s(impl->io);
      impl->acceptor.accept(s, ec);
      if (ec) return;
      s.set_option(tcp::no_delay(true), ec);  // each event goes out at once, like a real server
      std::lock_guard<std::mutex> l(impl->mu);
      impl->workers.emplace_back(
          [impl, sock = std::move(s)]() mutable { impl->connection(std::move(sock)); });
    }
  });
}

FakeModelUpstream::~FakeModelUpstream() {
  release();
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);  // wakes the blocking accept
  impl_->accept_thread.join();
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);  // wakes a worker waiting to read
  }
  for (auto& w : impl_->workers) w.join();
}

std::vector<FakeModelUpstream::Seen> FakeModelUpstream::seen() {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->seen;
}

void FakeModelUpstream::release() {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->released = true;
  impl_->cv.notify_all();
}

}  // namespace aw::test
