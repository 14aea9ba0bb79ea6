// The HTTP server of `awaywork serve` (Boost.Beast): binds, then serves the dashboard and the API
// until SIGINT/SIGTERM, when it stops the units it started. Every request passes guard() first.
//   AW_TRY(auto server, Server::bind(opts, token, api, children));
//   print(server->address(), server->port());
//   server->run();  // blocks
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/result.h"

namespace aw {

class Api;
class Children;

struct ServeOptions {
  std::string address = "127.0.0.1";  // an IP literal; anything but loopback needs `anywhere`
  int port = 0;                       // 0 = the kernel picks
  bool anywhere = false;              // --listen-anywhere
  int max_connections = 64;           // beyond it a connection gets 503 and is closed
  size_t body_limit = 1u << 20;       // a request body larger than this gets 413
  size_t header_limit = 16u << 10;
  std::chrono::milliseconds header_timeout{10000};  // the whole header, however it trickles
  std::chrono::milliseconds body_timeout{30000};
  int workers = 4;  // threads for the handlers (SQLite reads, doctor, submit)
};

// "127.0.0.1:8080", "[::1]:0", "localhost:0" → address and port. Refuses a name other than
// localhost (no resolution) and a port outside 0..65535.
Result<ServeOptions> parse_listen(const std::string& listen, bool anywhere);

// Is it 127.0.0.1 or ::1?
bool is_loopback_address(const std::string& address);

class Server {
 public:
  static Result<std::unique_ptr<Server>> bind(const ServeOptions& opts, std::string token, Api& api,
                                              Children& children);
  ~Server();
  int port() const;
  // The address the socket is bound to, as the kernel reports it ("127.0.0.1", "::1", "::").
  std::string address() const;
  void run();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace aw
