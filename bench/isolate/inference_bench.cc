// inference_bench [RUNS] [DELAY_MS]: what the inference proxy adds to one model request, medians
// in one run, against the fake provider server of the tests (TLS, certificate made by the openssl
// CLI, keep-alive), which waits DELAY_MS (default 20: a distant API's round trip) before answering:
//   direct        one TLS connection to the fake server kept alive, one non-streaming request
//   proxy         the same request through the proxy on 127.0.0.1 (keep-alive to the proxy; the
//                 proxy reuses its pooled TLS connection upstream)
//   proxy-no-pool  the same through a proxy keeping no upstream connection (a handshake each)
//   proxy-sse-ttfb  time to the first SSE event of a streaming request through the proxy
// and the overhead (proxy - direct) and ratio (proxy / direct).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>  // before Boost 1.74's asio (awaitable.hpp needs std::exchange)
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "../../tests/proxy/fake_model_upstream.h"
#include "../common/bench_time.h"
#include "base/fs.h"
#include "proxy/inference_proxy.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

const std::string kKey = "sk-ant-api03-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake-AAAA";
const std::string kBody = R"({"model":"fake","max_tokens":16,"messages":[]})";
const std::string kStream = R"({"model":"fake","max_tokens":16,"stream":true,"messages":[]})";

http::request<http::string_body> make_request(const std::string& auth, const std::string& body) {
  http::request<http::string_body> req{http::verb::post, "/v1/messages", 11};
  req.set(http::field::host, "api.anthropic.test");
  req.set("x-api-key", auth);
  req.set(http::field::content_type, "application/json");
  req.body() = body;
  req.prepare_payload();
  return req;
}

struct Case {
  std::string name;
  std::function<bool()> once;
  std::vector<double> ms;
};

using aw::bench::median;

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 100;
  int delay_ms = argc > 2 ? std::atoi(argv[2]) : 20;
  char tmpl[] = "/var/tmp/aw-inference-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  auto cert = aw::test::make_test_cert(dir, "fake-api", {"api.anthropic.test"});
  if (cert.cert.empty()) {
    std::fprintf(stderr, "the openssl CLI made no certificate\n");
    return 1;
  }
  aw::test::FakeModelUpstream upstream(cert, aw::test::FakeUpstreamOptions{.delay_ms = delay_ms, .idle_close_ms = 0, .auth = {}, .redirect_to = {}});
  aw::InferenceProxyOptions o;
  o.tcp_loopback = true;
  o.api = "anthropic";
  o.upstream = "https://api.anthropic.test:" + std::to_string(upstream.port());
  o.credential = kKey;
  o.ca_file = cert.cert;
  o.static_hosts = {{"api.anthropic.test", "127.0.0.1"}};
  auto proxy = aw::InferenceProxy::start(o);
  if (!proxy) {
    std::fprintf(stderr, "%s\n", proxy.error().message.c_str());
    return 1;
  }
  auto issued = (*proxy)->issue_token();
  if (!issued) {
    std::fprintf(stderr, "%s\n", issued.error().message.c_str());
    return 1;
  }
  std::string token = *issued;
  o.upstream_pool = 0;  // as the proxy was before its pool: a TLS handshake per request
  auto unpooled = aw::InferenceProxy::start(o);
  if (!unpooled) {
    std::fprintf(stderr, "%s\n", unpooled.error().message.c_str());
    return 1;
  }
  auto unpooled_issued = (*unpooled)->issue_token();
  if (!unpooled_issued) {
    std::fprintf(stderr, "%s\n", unpooled_issued.error().message.c_str());
    return 1;
  }
  std::string unpooled_token = *unpooled_issued;
  tcp::endpoint unpooled_ep(asio::ip::address_v4::loopback(), (*unpooled)->tcp_port());

  asio::io_context io;
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.load_verify_file(cert.cert);
  tls.set_verify_mode(asio::ssl::verify_peer);
  tcp::endpoint up_ep(asio::ip::address_v4::loopback(), upstream.port());
  tcp::endpoint proxy_ep(asio::ip::address_v4::loopback(), (*proxy)->tcp_port());
  tcp::socket keep(io);  // the agent's kept-alive connection to the proxy
  beast::flat_buffer keep_buf;
  asio::ssl::stream<tcp::socket> direct_tls(io, tls);  // a kept-alive TLS connection to the fake
  beast::flat_buffer direct_buf;
  bool direct_open = false;

  Clock::time_point first_event;  // when proxy-sse-ttfb saw its first event
  std::vector<Case> cases;
  cases.push_back({"direct",
                   [&] {
                     beast::error_code ec;
                     if (!direct_open) {
                       SSL_set_tlsext_host_name(direct_tls.native_handle(), "api.anthropic.test");
                       direct_tls.next_layer().connect(up_ep, ec);
                       if (!ec) direct_tls.next_layer().set_option(tcp::no_delay(true), ec);
                       if (!ec) direct_tls.handshake(asio::ssl::stream_base::client, ec);
                       direct_open = !ec;
                     }
                     auto req = make_request(kKey, kBody);
                     if (!ec) http::write(direct_tls, req, ec);
                     http::response<http::string_body> res;
                     if (!ec) http::read(direct_tls, direct_buf, res, ec);
                     return !ec && res.result_int() == 200;
                   },
                   {}});
  cases.push_back({"proxy",
                   [&] {
                     beast::error_code ec;
                     if (!keep.is_open()) {
                       keep.connect(proxy_ep, ec);
                       // as node's http client (the agent CLIs') sets it
                       if (!ec) keep.set_option(tcp::no_delay(true), ec);
                     }
                     auto req = make_request(token, kBody);
                     if (!ec) http::write(keep, req, ec);
                     http::response<http::string_body> res;
                     if (!ec) http::read(keep, keep_buf, res, ec);
                     return !ec && res.result_int() == 200;
                   },
                   {}});
  tcp::socket keep2(io);
  beast::flat_buffer keep2_buf;
  cases.push_back({"proxy-no-pool",
                   [&] {
                     beast::error_code ec;
                     if (!keep2.is_open()) {
                       keep2.connect(unpooled_ep, ec);
                       if (!ec) keep2.set_option(tcp::no_delay(true), ec);
                     }
                     auto req = make_request(unpooled_token, kBody);
                     if (!ec) http::write(keep2, req, ec);
                     http::response<http::string_body> res;
                     if (!ec) http::read(keep2, keep2_buf, res, ec);
                     return !ec && res.result_int() == 200;
                   },
                   {}});
  cases.push_back({"proxy-sse-ttfb",
                   [&] {
                     beast::error_code ec;
                     tcp::socket s(io);
                     s.connect(proxy_ep, ec);
                     auto req = make_request(token, kStream);
                     if (!ec) http::write(s, req, ec);
                     std::string got;
                     char buf[4096];
                     while (!ec && got.find("message_start") == std::string::npos) {
                       size_t n = s.read_some(asio::buffer(buf), ec);
                       got.append(buf, n);
                     }
                     first_event = Clock::now();
                     // Read to the end, so that the proxy keeps its upstream connection: a
                     // stream cut here would cost the next request a fresh TLS handshake.
                     while (!ec && got.find("0\r\n\r\n") == std::string::npos) {
                       size_t n = s.read_some(asio::buffer(buf), ec);
                       got.append(buf, n);
                     }
                     return !ec;
                   },
                   {}});
  // Round-robin so that load from other processes spreads evenly over the cases.
  for (int i = 0; i < runs; ++i)
    for (auto& c : cases) {
      auto a = Clock::now();
      if (!c.once()) {
        std::fprintf(stderr, "%s: run failed\n", c.name.c_str());
        return 1;
      }
      auto end = c.name == "proxy-sse-ttfb" ? first_event : Clock::now();
      c.ms.push_back(std::chrono::duration<double, std::milli>(end - a).count());
    }
  for (auto& c : cases) std::printf("%-16s median %.3f ms\n", c.name.c_str(), median(c.ms));
  double direct = median(cases[0].ms), via = median(cases[1].ms);
  std::printf(
      "proxy overhead   %.3f ms per request, ratio proxy/direct %.3f (%d runs, upstream delay %d "
      "ms)\n",
      via - direct, via / direct, runs, delay_ms);
  (void)aw::remove_tree(dir);
  return 0;
}
