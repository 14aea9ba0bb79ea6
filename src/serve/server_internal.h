// Shared by server.cc (accept, lifecycle) and connection.cc (one client's requests).
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <string>

#include "serve/api.h"
#include "serve/server.h"

namespace aw {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct ServerShared {
  ServeOptions opts;
  std::string token;
  int port = 0;
  Api& api;
  net::thread_pool& pool;
  std::atomic<int> connections{0};
  // Set once the units this server started are stopped: each live log then ends with a line
  // saying why and its last chunk, and the server waits (briefly) for `streams` to reach 0.
  std::atomic<bool> stopping{false};
  std::atomic<int> streams{0};  // live logs whose header went out and that are not over
};

// Takes over an accepted socket and serves its requests until it closes or times out.
void serve_connection(tcp::socket socket, ServerShared& shared);

}  // namespace aw
