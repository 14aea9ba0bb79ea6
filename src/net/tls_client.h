// An HTTPS client's connection to one upstream, shared by the inference proxy and the forge
// client: its URL, the TLS client context (system store plus an optional extra CA bundle, TLS
// 1.2+), and connecting with certificate and hostname verification. Coroutines on Boost.Asio:
// co_await connect_upstream, then tls_handshake for an https URL.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>  // first: Boost 1.74's awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "base/result.h"

namespace aw {

struct UpstreamUrl {
  bool tls = true;
  std::string host;  // name or IP literal (no brackets)
  uint16_t port = 443;
  std::string base_path;  // "" or "/base" (no trailing slash): request targets are appended
  std::string host_header;
};

// https://host[:port][/base], or http:// to a loopback address (tests); no user, query, fragment.
Result<UpstreamUrl> parse_upstream(const std::string& url,
                                   const std::map<std::string, std::string>& static_hosts);

Result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(const std::string& ca_file);

using UpstreamTls = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// Resolve (static_hosts first) and connect within timeout; "" on success, else why (no secrets
// in it).
boost::asio::awaitable<std::string> connect_upstream(
    boost::beast::tcp_stream& stream, const UpstreamUrl& url,
    const std::map<std::string, std::string>& static_hosts,
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

// SNI, hostname (or IP) verification against the certificate, then the handshake.
boost::asio::awaitable<std::string> tls_handshake(
    UpstreamTls& stream, const UpstreamUrl& url,
    std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace aw
