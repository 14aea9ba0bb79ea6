// One HTTP exchange with a forge's API, and the transport that carries it. The client (client.h)
// speaks to a Transport, so its rules (pagination, ETags, rate limits, retries) run the same over
// the real Boost.Beast transport and in tests; a Clock makes its waits injectable.
//
//   AW_TRY(auto t, beast_transport({.api_url = "https://api.github.com"}));
//   AW_TRY(HttpResponse r, t->send({"GET", "/user", {{"Accept", "..."}}, ""}));
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

struct HttpRequest {
  std::string method;  // GET, POST, PATCH, PUT, DELETE
  std::string target;  // the path under the API's base, with its query: "/repos/o/r/issues?page=2"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  std::string header(const std::string& lower_name) const;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // An Error is a failure to exchange (connect, TLS, timeout, a cut response), never a status.
  virtual Result<HttpResponse> send(const HttpRequest& req) = 0;
};

struct TransportOptions {
  std::string api_url;  // https://host[:port][/base] or http:// to loopback
  std::string ca_file;  // "" = the system store only
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds read_timeout{60000};
};

// Boost.Beast over verified TLS (net/tls_client.h), one keep-alive connection, reopened when the
// server closes it.
Result<std::unique_ptr<Transport>> beast_transport(const TransportOptions& opt);

// Time as the client waits it: the real one sleeps, a test's advances.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_seconds() = 0;  // Unix time
  virtual void sleep(std::chrono::milliseconds d) = 0;
};
Clock& system_clock();

}  // namespace aw
