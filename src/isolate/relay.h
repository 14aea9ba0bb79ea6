// The byte pump of awaywork's bridges (the sandbox's, sandbox/bridge.cc, and the static container
// bridge, container/bridge_main.cc): copies both ways between two connected sockets until both
// directions are closed, passing a half-close on. libc only: the container bridge is static.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace aw {

inline void relay_both_ways(int a, int b) {
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  bool open_in[2] = {true, true};
  char buf[16384];
  while (open_in[0] || open_in[1]) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (!open_in[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      int other = i == 0 ? b : a;  // not fds[]: a closed direction's slot is -1 there
      if (n <= 0) {
        open_in[i] = false;
        fds[i].fd = -1;
        ::shutdown(other, SHUT_WR);
        continue;
      }
      for (ssize_t off = 0; off < n;) {
        ssize_t w = ::write(other, buf + off, static_cast<size_t>(n - off));
        if (w <= 0) return;
        off += w;
      }
    }
  }
}

}  // namespace aw
