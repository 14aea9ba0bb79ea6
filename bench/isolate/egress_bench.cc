// egress_bench [RUNS] [DELAY_MS] [REQUESTS]: issue 27's figures for the egress proxy's terminated
// TLS (a CONNECT to a host an injection rule binds), medians of RUNS in one run, against the
// tests' fake server (TLS, a certificate made by the openssl CLI, keep-alive), which waits
// DELAY_MS (default 20) before each answer. That delay stands for the round trip to a distant
// registry: it is a sleep in the fake upstream per request, not a delayed network (the loopback's
// handshakes take no 20 ms), so the first-request figures are the proxy's own work (the CONNECT,
// the unit CA's leaf, the second TLS handshake), to which a real RTT adds the same upstream TCP
// and TLS round trips on both sides.
//   direct          REQUESTS (default 100) sequential GETs on one kept-alive TLS connection
//                   straight to the fake, the value in the request as the client's own
//   proxy           the same through the proxy with keep-alive: one CONNECT, one TLS handshake
//                   with a certificate from the unit's CA, the placeholder replaced by the value
//                   (a new proxy each run: its first CONNECT issues the host's leaf)
//   per-request     the same through the proxy, one connection (CONNECT + handshake) per request
//                   with Connection: close, as every request went before keep-alive
//   first-*         the first request's answer alone: direct (TCP + TLS to the fake), through a
//                   new proxy (cold: the leaf issued), through the same proxy again (warm)
//   unit-ca         UnitCa::make for the rule's host, and writing the phase's CA bundle: what a
//                   unit's start adds when a rule binds a host
// then the ratio proxy / direct and the first request's extra cost (first-proxy - first-direct).
#include <openssl/ssl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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
#include "proxy/egress_proxy.h"
#include "proxy/unit_ca.h"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using asio::ip::tcp;
using Local = asio::local::stream_protocol;
using Clock = std::chrono::steady_clock;

// Fake tokens shaped like real ones; never real credentials.
const std::string kToken = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123";
const std::string kPlaceholder = "awaywork-placeholder-NPM_TOKEN-0123456789abcdef0123456789abcdef";
const char* kHost = "npm.example.test";

using aw::bench::median;
using aw::bench::ms_since;

// One GET of the rule's path; true when the fake answered 200 (it does only when the request
// carries the value: through the proxy, only when the proxy injected it).
template <class Stream>
bool ask(Stream& s, beast::flat_buffer& buf, const std::string& host_port,
         const std::string& token, bool close) {
  http::request<http::empty_body> req{http::verb::get, "/pkg/left-pad", 11};
  req.set(http::field::host, host_port);
  req.set(http::field::authorization, "Bearer " + token);
  if (close) req.set(http::field::connection, "close");
  beast::error_code ec;
  http::write(s, req, ec);
  http::response<http::string_body> res;
  if (!ec) http::read(s, buf, res, ec);
  return !ec && res.result_int() == 200;
}

// A CONNECT through the proxy's socket, then TLS inside it, verifying the unit CA's leaf.
bool open_via_proxy(asio::ssl::stream<Local::socket>& s, const std::string& socket_path,
                    const std::string& host_port) {
  beast::error_code ec;
  s.next_layer().connect(Local::endpoint(socket_path), ec);
  std::string connect = "CONNECT " + host_port + " HTTP/1.1\r\nHost: " + host_port + "\r\n\r\n";
  if (!ec) asio::write(s.next_layer(), asio::buffer(connect), ec);
  std::string head;  // nothing follows the 200 until the ClientHello: no TLS byte is taken here
  if (!ec) asio::read_until(s.next_layer(), asio::dynamic_buffer(head), "\r\n\r\n", ec);
  if (ec || head.rfind("HTTP/1.1 200", 0) != 0) return false;
  SSL_set_tlsext_host_name(s.native_handle(), kHost);
  SSL_set1_host(s.native_handle(), kHost);
  s.handshake(asio::ssl::stream_base::client, ec);
  return !ec;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  int delay_ms = argc > 2 ? std::atoi(argv[2]) : 20;
  int requests = argc > 3 ? std::atoi(argv[3]) : 100;
  char tmpl[] = "/var/tmp/aw-egress-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  auto cert = aw::test::make_test_cert(dir, "fake-npm", {kHost});
  if (cert.cert.empty()) {
    std::fprintf(stderr, "the openssl CLI made no certificate\n");
    return 1;
  }
  aw::test::FakeModelUpstream upstream(
      cert, aw::test::FakeUpstreamOptions{.delay_ms = delay_ms,
                                          .idle_close_ms = 0,
                                          .auth = "Bearer " + kToken,
                                          .redirect_to = {}});
  std::string host_port = std::string(kHost) + ":" + std::to_string(upstream.port());
  aw::EgressInjection rule;
  rule.secret = "NPM_TOKEN";
  rule.value = kToken;
  rule.host = kHost;
  rule.methods = {"GET", "HEAD"};
  rule.paths = {"/pkg/"};

  asio::io_context io;
  asio::ssl::context direct_tls(asio::ssl::context::tls_client);
  direct_tls.load_verify_file(cert.cert);
  direct_tls.set_verify_mode(asio::ssl::verify_peer);
  tcp::endpoint up_ep(asio::ip::address_v4::loopback(), upstream.port());

  std::vector<double> direct, via, per_request, first_direct, first_cold, first_warm, ca_make,
      ca_bundle;
  for (int run = 0; run < runs; ++run) {
    // The unit's start: its CA, and the bundle the phase trusts.
    auto a = Clock::now();
    auto ca = aw::UnitCa::make({kHost});
    ca_make.push_back(ms_since(a));
    if (!ca) {
      std::fprintf(stderr, "UnitCa::make: %s\n", ca.error().message.c_str());
      return 1;
    }
    a = Clock::now();
    if (auto st = aw::write_ca_bundle(dir + "/ca-bundle.pem", **ca); !st) {
      std::fprintf(stderr, "write_ca_bundle: %s\n", st.error().message.c_str());
      return 1;
    }
    ca_bundle.push_back(ms_since(a));

    aw::EgressProxyOptions o;
    o.socket_path = dir + "/egress.sock";
    o.allow = {kHost};
    o.static_hosts = {{kHost, "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.inject = {rule};
    o.placeholders = {{kPlaceholder, "NPM_TOKEN"}};
    o.ca_file = cert.cert;
    o.ca = *ca;
    auto proxy = aw::EgressProxy::start(o);
    if (!proxy) {
      std::fprintf(stderr, "%s\n", proxy.error().message.c_str());
      return 1;
    }
    asio::ssl::context unit_tls(asio::ssl::context::tls_client);
    unit_tls.add_certificate_authority(asio::buffer((*ca)->cert_pem()));
    unit_tls.set_verify_mode(asio::ssl::verify_peer);
    auto fail = [&](const char* what) {
      std::fprintf(stderr, "%s: run %d failed\n", what, run);
      return 1;
    };

    {  // direct: one kept-alive TLS connection to the fake
      a = Clock::now();
      asio::ssl::stream<tcp::socket> s(io, direct_tls);
      beast::error_code ec;
      s.next_layer().connect(up_ep, ec);
      if (!ec) s.next_layer().set_option(tcp::no_delay(true), ec);
      SSL_set_tlsext_host_name(s.native_handle(), kHost);
      if (!ec) s.handshake(asio::ssl::stream_base::client, ec);
      beast::flat_buffer buf;
      if (ec || !ask(s, buf, host_port, kToken, false)) return fail("direct");
      first_direct.push_back(ms_since(a));
      for (int i = 1; i < requests; ++i)
        if (!ask(s, buf, host_port, kToken, false)) return fail("direct");
      direct.push_back(ms_since(a));
    }
    {  // through the new proxy, kept alive: its first CONNECT issues the host's leaf
      a = Clock::now();
      asio::ssl::stream<Local::socket> s(io, unit_tls);
      beast::flat_buffer buf;
      if (!open_via_proxy(s, o.socket_path, host_port) ||
          !ask(s, buf, host_port, kPlaceholder, false))
        return fail("proxy");
      first_cold.push_back(ms_since(a));
      for (int i = 1; i < requests; ++i)
        if (!ask(s, buf, host_port, kPlaceholder, false)) return fail("proxy");
      via.push_back(ms_since(a));
    }
    {  // the same proxy's next connection: the leaf is made already
      a = Clock::now();
      asio::ssl::stream<Local::socket> s(io, unit_tls);
      beast::flat_buffer buf;
      if (!open_via_proxy(s, o.socket_path, host_port) ||
          !ask(s, buf, host_port, kPlaceholder, false))
        return fail("first-warm");
      first_warm.push_back(ms_since(a));
    }
    {  // as before keep-alive: a CONNECT and a handshake per request
      a = Clock::now();
      for (int i = 0; i < requests; ++i) {
        asio::ssl::stream<Local::socket> s(io, unit_tls);
        beast::flat_buffer buf;
        if (!open_via_proxy(s, o.socket_path, host_port) ||
            !ask(s, buf, host_port, kPlaceholder, true))
          return fail("per-request");
      }
      per_request.push_back(ms_since(a));
    }
  }
  auto row = [](const char* name, const std::vector<double>& v) {
    std::printf("%-22s median %10.3f ms\n", name, median(v));
  };
  std::printf("%d runs, %d requests each, the fake upstream answering after %d ms (a sleep per "
              "request, standing for the RTT)\n",
              runs, requests, delay_ms);
  row("direct", direct);
  row("proxy", via);
  row("per-request", per_request);
  row("first-direct", first_direct);
  row("first-proxy-cold", first_cold);
  row("first-proxy-warm", first_warm);
  row("unit-ca make", ca_make);
  row("unit-ca bundle", ca_bundle);
  double d = median(direct), p = median(via);
  std::printf("ratio proxy/direct %.3f (issue 27: <= 1.10); per-request/direct %.3f\n", p / d,
              median(per_request) / d);
  std::printf("first request's extra cost through the proxy: cold %.3f ms, warm %.3f ms\n",
              median(first_cold) - median(first_direct),
              median(first_warm) - median(first_direct));
  std::printf("unit start with the CA made: +%.3f ms (make + bundle; issue 27: within 5 ms)\n",
              median(ca_make) + median(ca_bundle));
  (void)aw::remove_tree(dir);
  return 0;
}
