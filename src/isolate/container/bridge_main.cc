// aw_bridge_static PORT SOCKET: the egress bridge of isolation container with network allowlist.
// Runs (statically linked, lent read-only) as the only process of a unit's bridge container, on
// `--network none`: listens on 127.0.0.1:PORT inside that network namespace, which every phase
// container of the unit joins, and relays each connection to the egress proxy's unix socket,
// mounted into this container only. The phases never see the socket; the proxy decides.
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

namespace {

void relay(int a, int b) {
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
      int other = i == 0 ? b : a;
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || std::strlen(argv[2]) >= sizeof(sockaddr_un{}.sun_path)) {
    std::fprintf(stderr, "usage: aw_bridge_static PORT SOCKET\n");
    return 2;
  }
  int port = std::atoi(argv[1]);
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || port <= 0 || port > 65535 ||
      ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0) {
    std::fprintf(stderr, "aw_bridge_static: listen on 127.0.0.1:%s: %s\n", argv[1],
                 std::strerror(errno));
    return 1;
  }
  // The line the starter waits for: from here on, a phase that joins this namespace finds the
  // proxy port open.
  std::printf("listening 127.0.0.1:%d\n", port);
  std::fflush(stdout);
  ::signal(SIGCHLD, SIG_IGN);  // relays reap themselves (we are PID 1 of the container)
  for (;;) {
    int c = ::accept4(s, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return 1;
    }
    if (::fork() == 0) {
      ::close(s);
      int p = connect_unix(argv[2]);
      if (p >= 0) relay(c, p);
      ::_exit(0);
    }
    ::close(c);
  }
}
