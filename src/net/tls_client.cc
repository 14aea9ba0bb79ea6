// Verification is OpenSSL's own (X509_VERIFY_PARAM host/IP check during the chain check), so a
// certificate for another name fails the handshake itself, before a byte of the request is sent.
#include "net/tls_client.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio.hpp>
#include <chrono>

namespace aw {

namespace asio = boost::asio;
namespace beast = boost::beast;
using boost::system::error_code;

namespace {

bool is_loopback_literal(const std::string& host) {
  error_code ec;
  auto a = asio::ip::make_address(host, ec);
  return !ec && a.is_loopback();
}

bool is_ip_literal(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

Result<UpstreamUrl> parse_upstream(const std::string& url,
                                   const std::map<std::string, std::string>& static_hosts) {
  UpstreamUrl u;
  std::string rest;
  if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    u.tls = false;
    u.port = 80;
    rest = url.substr(7);
  } else {
    return fail("upstream '{}': not an https:// URL", url);
  }
  if (rest.find_first_of("@?#") != std::string::npos)
    return fail("upstream '{}': no user, query or fragment allowed", url);
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  u.base_path = slash == std::string::npos ? "" : rest.substr(slash);
  while (!u.base_path.empty() && u.base_path.back() == '/') u.base_path.pop_back();
  std::string port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return fail("upstream '{}': bad IPv6 host", url);
    u.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return fail("upstream '{}': bad host", url);
      port = authority.substr(close + 2);
    }
  } else {
    size_t colon = authority.rfind(':');
    u.host = authority.substr(0, colon);
    if (colon != std::string::npos) port = authority.substr(colon + 1);
  }
  if (u.host.empty()) return fail("upstream '{}': no host", url);
  if (!port.empty()) {
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (*end || p <= 0 || p > 65535) return fail("upstream '{}': bad port", url);
    u.port = static_cast<uint16_t>(p);
  }
  std::string bracketed = u.host.find(':') != std::string::npos ? "[" + u.host + "]" : u.host;
  bool default_port = u.port == (u.tls ? 443 : 80);
  u.host_header = default_port ? bracketed : bracketed + ":" + std::to_string(u.port);
  if (!u.tls) {
    auto it = static_hosts.find(u.host);
    std::string ip = it == static_hosts.end() ? u.host : it->second;
    if (u.host != "localhost" && !is_loopback_literal(ip))
      return fail("upstream '{}': plain http:// is allowed only to loopback", url);
  }
  return u;
}

Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const std::string& ca_file) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  error_code ec;
  ctx->set_default_verify_paths(ec);
  if (ec) return fail("the system's CA store: {}", ec.message());
  if (!ca_file.empty()) {
    ctx->load_verify_file(ca_file, ec);
    if (ec) return fail("CA bundle {}: {}", ca_file, ec.message());
  }
  ctx->set_verify_mode(asio::ssl::verify_peer, ec);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  return ctx;
}

asio::awaitable<std::string> connect_upstream(
    beast::tcp_stream& stream, const UpstreamUrl& url,
    const std::map<std::string, std::string>& static_hosts, std::chrono::milliseconds timeout) {
  auto it = static_hosts.find(url.host);
  std::string name = it == static_hosts.end() ? url.host : it->second;
  std::string port = std::to_string(url.port);
  error_code ec;
  asio::ip::tcp::resolver resolver(stream.get_executor());
  auto results =
      co_await resolver.async_resolve(name, port, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return fmt::format("cannot resolve {}: {}", url.host, ec.message());
  stream.expires_after(timeout);
  co_await stream.async_connect(results, asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return fmt::format("cannot connect to {}:{}: {}", url.host, url.port, ec.message());
  stream.socket().set_option(asio::ip::tcp::no_delay(true), ec);  // not a failure if refused
  co_return std::string();
}

asio::awaitable<std::string> tls_handshake(UpstreamTls& stream, const UpstreamUrl& url,
                                           std::chrono::milliseconds timeout) {
  SSL* ssl = stream.native_handle();
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  bool ip = is_ip_literal(url.host);
  bool set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str()) == 1
                : X509_VERIFY_PARAM_set1_host(param, url.host.c_str(), 0) == 1 &&
                      SSL_set_tlsext_host_name(ssl, url.host.c_str()) == 1;
  if (!set) co_return fmt::format("TLS setup for {} failed", url.host);
  error_code ec;
  beast::get_lowest_layer(stream).expires_after(timeout);
  co_await stream.async_handshake(asio::ssl::stream_base::client,
                                  asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) co_return std::string();
  long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK)
    co_return fmt::format("TLS with {}: certificate not accepted: {}", url.host,
                          X509_verify_cert_error_string(verify));
  co_return fmt::format("TLS with {} failed: {}", url.host, ec.message());
}

}  // namespace aw
