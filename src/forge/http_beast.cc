// The real transport: Boost.Beast over the TLS connection code the inference proxy uses too
// (net/tls_client.h), driven synchronously by running its coroutines on a private io_context.
#include <utility>  // first: Boost 1.74's awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <thread>

#include "forge/http.h"
#include "net/tls_client.h"

namespace aw {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;

namespace {

constexpr size_t kMaxBody = 64u << 20;

class BeastTransport : public Transport {
 public:
  BeastTransport(TransportOptions opt, UpstreamUrl url, std::shared_ptr<asio::ssl::context> tls)
      : opt_(std::move(opt)), url_(std::move(url)), tls_(std::move(tls)) {}

  Result<HttpResponse> send(const HttpRequest& req) override {
    bool reused = open();
    Attempt a = run(attempt(req));
    // A keep-alive connection the server closed while idle fails before any answer: open a
    // fresh one once. A request that may have reached the server is never sent twice.
    if (!a.result && reused && !a.answered) {
      close();
      open();
      a = run(attempt(req));
    }
    if (!a.result || !a.keep) close();
    return std::move(a.result);
  }

 private:
  struct Attempt {
    Result<HttpResponse> result = fail("no exchange");
    bool answered = false;  // a byte of the response arrived
    bool keep = false;
  };

  // true when a connection was already open (to be reused).
  bool open() {
    if (tls_stream_ || plain_) return true;
    if (url_.tls)
      tls_stream_ = std::make_unique<UpstreamTls>(io_, *tls_);
    else
      plain_ = std::make_unique<beast::tcp_stream>(io_);
    fresh_ = true;
    return false;
  }
  void close() {
    tls_stream_.reset();
    plain_.reset();
    buffer_.clear();
  }

  Attempt run(asio::awaitable<Attempt> a) {
    io_.restart();
    std::optional<Attempt> out;
    asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e, Attempt v) {
      if (e) {
        out = Attempt{};
        out->result = fail("the connection failed unexpectedly");
      } else {
        out = std::move(v);
      }
    });
    io_.run();
    return out ? std::move(*out) : Attempt{};
  }

  asio::awaitable<Attempt> attempt(HttpRequest req) {
    if (fresh_) {
      fresh_ = false;
      std::string why;
      if (tls_stream_) {
        why = co_await connect_upstream(beast::get_lowest_layer(*tls_stream_), url_, {},
                                        opt_.connect_timeout);
        if (why.empty()) why = co_await tls_handshake(*tls_stream_, url_, opt_.connect_timeout);
      } else {
        why = co_await connect_upstream(*plain_, url_, {}, opt_.connect_timeout);
      }
      if (!why.empty()) {
        Attempt a;
        a.answered = true;  // nothing to retry: the connection itself failed
        a.result = fail("{}", why);
        co_return a;
      }
    }
    if (tls_stream_) co_return co_await exchange(*tls_stream_, req);
    co_return co_await exchange(*plain_, req);
  }

  template <class Stream>
  asio::awaitable<Attempt> exchange(Stream& s, const HttpRequest& r) {
    Attempt a;
    http::verb verb = http::string_to_verb(r.method);
    if (verb == http::verb::unknown) {
      a.answered = true;
      a.result = fail("unknown HTTP method {}", r.method);
      co_return a;
    }
    http::request<http::string_body> req{verb, url_.base_path + r.target, 11};
    req.set(http::field::host, url_.host_header);
    for (const auto& [k, v] : r.headers) req.set(k, v);
    req.body() = r.body;
    req.keep_alive(true);
    req.prepare_payload();
    error_code ec;
    auto& lowest = beast::get_lowest_layer(s);
    lowest.expires_after(opt_.read_timeout);
    co_await http::async_write(s, req, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      a.result = fail("sending to {}: {}", url_.host, ec.message());
      co_return a;
    }
    http::response_parser<http::string_body> p;
    p.body_limit(kMaxBody);
    co_await http::async_read_header(s, buffer_, p, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      a.answered = ec != http::error::end_of_stream && ec != asio::error::eof &&
                   ec != asio::error::connection_reset;
      a.result = ec == beast::error::timeout ? fail("{} did not answer within {} s", url_.host,
                                                    opt_.read_timeout.count() / 1000)
                                             : fail("reading from {}: {}", url_.host, ec.message());
      co_return a;
    }
    a.answered = true;
    if (verb != http::verb::head)
      co_await http::async_read(s, buffer_, p, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      a.result = fail("reading the answer of {}: {}", url_.host,
                      ec == beast::error::timeout ? "timed out" : ec.message());
      co_return a;
    }
    auto res = p.release();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    for (const auto& f : res) {
      std::string name(f.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value(f.value());
      auto [it, fresh] = out.headers.emplace(name, value);
      if (!fresh) it->second += ", " + value;  // e.g. several Link headers
    }
    out.body = std::move(res.body());
    a.keep = res.keep_alive();
    a.result = std::move(out);
    co_return a;
  }

  TransportOptions opt_;
  UpstreamUrl url_;
  std::shared_ptr<asio::ssl::context> tls_;
  asio::io_context io_;
  std::unique_ptr<UpstreamTls> tls_stream_;
  std::unique_ptr<beast::tcp_stream> plain_;
  beast::flat_buffer buffer_;
  bool fresh_ = false;
};

class SystemClock : public Clock {
 public:
  int64_t now_seconds() override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
};

}  // namespace

std::string HttpResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

Result<std::unique_ptr<Transport>> beast_transport(const TransportOptions& opt) {
  AW_TRY(UpstreamUrl url, parse_upstream(opt.api_url, {}));
  std::shared_ptr<asio::ssl::context> tls;
  if (url.tls) {
    AW_TRY(tls, make_tls_context(opt.ca_file));
  }
  return std::unique_ptr<Transport>(new BeastTransport(opt, std::move(url), std::move(tls)));
}

Clock& system_clock() {
  static SystemClock clock;  // stateless
  return clock;
}

}  // namespace aw
