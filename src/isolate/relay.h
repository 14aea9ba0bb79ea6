// The byte pump of awaywork's bridges (the sandbox's, sandbox/bridge.cc, and the static container
// bridge, container/bridge_main.cc): copies both ways between two connected sockets, passing a
// half-close on, until nothing more can be delivered. libc only: the container bridge is static.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace aw {

// All of [p, p+n) to the socket fd; false once its peer can take no more. MSG_NOSIGNAL: a peer
// gone is an answer (EPIPE), not a SIGPIPE that kills the relay with the other direction's bytes.
inline bool send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// A direction whose receiver has gone keeps being read and dropped while the other one still
// delivers: a server may answer and close before it has read the whole request (an HTTP 401 or
// 413, a test server answering the first line), and that answer must reach the client even though
// the rest of the request cannot reach the server. Once no open direction delivers, the relay ends.
inline void relay_both_ways(int a, int b) {
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  bool open_in[2] = {true, true};
  bool dropping[2] = {false, false};
  char buf[16384];
  while ((open_in[0] && !dropping[0]) || (open_in[1] && !dropping[1])) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (!open_in[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      int other = i == 0 ? b : a;  // not fds[]: a closed direction's slot is -1 there
      if (n <= 0) {
        open_in[i] = false;
        fds[i].fd = -1;
        if (!dropping[i]) ::shutdown(other, SHUT_WR);
        continue;
      }
      if (!dropping[i] && !send_all(other, buf, static_cast<size_t>(n))) dropping[i] = true;
    }
  }
}

}  // namespace aw
