// Child side of the bridged sockets (network none and allowlist). The only ways out of the empty
// network namespace are unix sockets outside: the egress proxy's (allowlist) and the plan's
// bridges (the inference proxy). A bridge process inside listens on 127.0.0.1:<port> for each and
// relays every connection to its socket. Each socket is held as an O_PATH fd opened before the
// view was built, so nothing of the host's filesystem needs to be visible for it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "isolate/relay.h"
#include "isolate/sandbox/steps.h"

namespace aw::sandbox {

std::string open_bridges(const SandboxPlan& plan, std::vector<BridgeFds>* out) {
  for (const auto& b : active_bridges(plan)) {
    BridgeFds fds;
    fds.target_fd = ::open(b.socket.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fds.target_fd < 0) return step_error("bridge", "open " + b.socket, errno);
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return step_error("bridge", "socket", errno);
    int one = 1;
    ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(b.port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 64) != 0)
      return step_error("bridge", "listen on 127.0.0.1:" + std::to_string(b.port), errno);
    fds.listen_fd = s;
    out->push_back(fds);
  }
  return {};
}

// One process serves every bridge: it waits on all listeners and forks a relay per connection.
[[noreturn]] void run_bridges(const Prepared& p, const std::vector<BridgeFds>& bridges) {
  ::signal(SIGCHLD, SIG_IGN);  // relays reap themselves
  (void)drop_privileges(*p.plan);
  (void)apply_seccomp(p.seccomp, p.plan->enabled("nnp"));
  std::vector<pollfd> fds;
  for (const auto& b : bridges) fds.push_back({b.listen_fd, POLLIN, 0});
  for (;;) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      ::_exit(1);
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      int c = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;  // EINTR, ECONNABORTED: the next poll tells
      int one = 1;          // streamed events are small writes: no Nagle delay behind each ACK
      ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (::fork() == 0) {
        sockaddr_un target{};
        target.sun_family = AF_UNIX;
        std::snprintf(target.sun_path, sizeof target.sun_path, "/proc/self/fd/%d",
                      bridges[i].target_fd);
        int u = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (u >= 0 && ::connect(u, reinterpret_cast<sockaddr*>(&target), sizeof target) == 0)
          aw::relay_both_ways(c, u);
        ::_exit(0);
      }
      ::close(c);
    }
  }
}

}  // namespace aw::sandbox
