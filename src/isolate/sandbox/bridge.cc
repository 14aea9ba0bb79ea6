// Child side of network: allowlist. The only way out of the empty network namespace is the egress
// proxy's unix socket outside; a bridge process inside listens on 127.0.0.1:<port> and relays
// each connection to it. The socket is held as an O_PATH fd opened before the view was built, so
// nothing of the host's filesystem needs to be visible for it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "isolate/sandbox/steps.h"

namespace aw::sandbox {
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
      int other = fds[1 - i].fd;
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

}  // namespace

std::string open_proxy_listener(const SandboxPlan& plan, int* listen_fd) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return step_error("proxy bridge", "socket", errno);
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(plan.proxy_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0)
    return step_error("proxy bridge", "listen on 127.0.0.1", errno);
  *listen_fd = s;
  return {};
}

[[noreturn]] void run_bridge(const Prepared& p, int listen_fd, int proxy_fd) {
  ::signal(SIGCHLD, SIG_IGN);  // relays reap themselves
  (void)drop_privileges(*p.plan);
  (void)apply_seccomp(p.seccomp, p.plan->enabled("nnp"));
  sockaddr_un target{};
  target.sun_family = AF_UNIX;
  std::snprintf(target.sun_path, sizeof target.sun_path, "/proc/self/fd/%d", proxy_fd);
  for (;;) {
    int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      ::_exit(1);
    }
    if (::fork() == 0) {
      int u = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (u >= 0 && ::connect(u, reinterpret_cast<sockaddr*>(&target), sizeof target) == 0)
        relay(c, u);
      ::_exit(0);
    }
    ::close(c);
  }
}

}  // namespace aw::sandbox
