// The inference proxy's idle connections to its one upstream, kept for the next request (a TLS
// handshake to a model API costs a round trip or two; at 20 ms each that is most of a short
// request). Bounded in count; a connection idle past its lifetime, or one the upstream has closed
// or written to while idle, is dropped when the next request looks, before a byte is sent on it.
//   UpstreamPool<UpstreamTls> pool{4, std::chrono::seconds(30)};
//   auto s = pool.take();  // null: open a fresh one
//   ... after a complete response the upstream will keep: pool.put(std::move(s));
#pragma once

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <deque>
#include <memory>
#include <utility>

#include <boost/beast/core.hpp>

namespace aw {

template <class Stream>
class UpstreamPool {
 public:
  UpstreamPool(size_t max_idle, std::chrono::milliseconds lifetime)
      : max_(max_idle), lifetime_(lifetime) {}

  std::unique_ptr<Stream> take() {
    auto now = std::chrono::steady_clock::now();
    while (!idle_.empty()) {
      auto [s, since] = std::move(idle_.back());  // the most recently used: least likely closed
      idle_.pop_back();
      if (now - since < lifetime_ && still_open(*s)) return std::move(s);
    }
    return nullptr;
  }

  void put(std::unique_ptr<Stream> s) {
    if (max_ == 0) return;
    boost::beast::get_lowest_layer(*s).expires_never();
    if (idle_.size() >= max_) idle_.pop_front();  // the oldest goes
    idle_.emplace_back(std::move(s), std::chrono::steady_clock::now());
  }

  size_t idle() const { return idle_.size(); }

 private:
  // Between responses an open connection has nothing to read: a FIN (0), a TLS close_notify or
  // any other byte, or an error means the upstream is done with it.
  static bool still_open(Stream& s) {
    char c;
    int fd = boost::beast::get_lowest_layer(s).socket().native_handle();
    ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }

  size_t max_;
  std::chrono::milliseconds lifetime_;
  std::deque<std::pair<std::unique_ptr<Stream>, std::chrono::steady_clock::time_point>> idle_;
};

}  // namespace aw
