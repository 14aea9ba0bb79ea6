// aw_bridge_static PORT SOCKET [PORT SOCKET]...: the bridge of isolation container. Runs
// (statically linked, lent read-only) as the only process of a unit's bridge container, on
// `--network none`: for each pair it listens on 127.0.0.1:PORT inside that network namespace,
// which every phase container of the unit joins, and relays each connection to that pair's unix
// socket (the egress proxy's, the inference proxy's), mounted into this container only. The
// phases never see the sockets; the proxies decide.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "isolate/relay.h"

namespace {

constexpr int kMaxPairs = 8;

int connect_unix(const char* path) {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un u{};
  u.sun_family = AF_UNIX;
  std::strncpy(u.sun_path, path, sizeof u.sun_path - 1);
  if (s >= 0 && ::connect(s, reinterpret_cast<sockaddr*>(&u), sizeof u) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// A listening socket on 127.0.0.1:port, or -1.
int listen_loopback(int port) {
  if (port <= 0 || port > 65535) return -1;
  // Non-blocking: poll says a connection waits, but the client may have gone before accept.
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0) {
    int e = errno;
    if (s >= 0) ::close(s);
    errno = e;
    return -1;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int pairs = (argc - 1) / 2;
  if (argc < 3 || (argc - 1) % 2 != 0 || pairs > kMaxPairs) {
    std::fprintf(stderr, "usage: aw_bridge_static PORT SOCKET [PORT SOCKET]... (at most %d)\n",
                 kMaxPairs);
    return 2;
  }
  pollfd listeners[kMaxPairs];
  const char* sockets[kMaxPairs];
  for (int i = 0; i < pairs; ++i) {
    const char* port = argv[1 + 2 * i];
    sockets[i] = argv[2 + 2 * i];
    if (std::strlen(sockets[i]) >= sizeof(sockaddr_un{}.sun_path)) {
      std::fprintf(stderr, "aw_bridge_static: socket path too long: %s\n", sockets[i]);
      return 2;
    }
    int s = listen_loopback(std::atoi(port));
    if (s < 0) {
      std::fprintf(stderr, "aw_bridge_static: listen on 127.0.0.1:%s: %s\n", port,
                   std::strerror(errno));
      return 1;
    }
    listeners[i] = {s, POLLIN, 0};
  }
  // The line the starter may wait for: from here on, a phase that joins this namespace finds
  // every port open.
  std::printf("listening on %d port(s)\n", pairs);
  std::fflush(stdout);
  ::signal(SIGCHLD, SIG_IGN);  // relays reap themselves (we are PID 1 of the container)
  for (;;) {
    if (::poll(listeners, static_cast<nfds_t>(pairs), -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (int i = 0; i < pairs; ++i) {
      if (!(listeners[i].revents & POLLIN)) continue;
      int c = ::accept4(listeners[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
        return 1;
      }
      if (::fork() == 0) {
        for (int j = 0; j < pairs; ++j) ::close(listeners[j].fd);
        int p = connect_unix(sockets[i]);
        if (p >= 0) aw::relay_both_ways(c, p);
        ::_exit(0);
      }
      ::close(c);
    }
  }
}
