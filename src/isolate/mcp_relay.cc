// The MCP relay: stdin and stdout copied to and from one socket (mcp_relay.h).
#include "isolate/mcp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace aw {

namespace {

constexpr std::string_view kName = "__mcp-relay";
constexpr std::string_view kLoopback = "127.0.0.1:";

// A connected socket to target, or -1 with the reason in why.
int connect_to(std::string_view target, std::string& why) {
  if (target.starts_with('/')) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (target.size() >= sizeof addr.sun_path) {
      why = "the socket path is too long";
      return -1;
    }
    std::memcpy(addr.sun_path, target.data(), target.size());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0)
      return fd;
    why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  // Only the loopback address: the bridge's port in the unit's own network namespace. Anything
  // else would make the relay a way out of the unit that the config never named.
  int port = 0;
  std::string_view digits = target.substr(std::min(target.size(), kLoopback.size()));
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (!target.starts_with(kLoopback) || ec != std::errc() || end != digits.data() + digits.size() ||
      port <= 0 || port > 65535) {
    why = "write an absolute socket path or 127.0.0.1:PORT";
    return -1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0)
    return fd;
  why = std::strerror(errno);
  if (fd >= 0) ::close(fd);
  return -1;
}

// All of [p, p+n) to fd (a pipe, a terminal or the socket); false once it can take no more.
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// stdin -> sock and sock -> stdout until the server's side ends (the session is over: the server
// exited) or both directions are done. stdin's end is passed on as a half-close, which is the end
// of the session for a stdio server (it reads EOF and exits).
int pump(int sock) {
  pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {sock, POLLIN, 0}};
  char buf[16384];
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::read(sock, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // the server ended the session
      if (!write_all(STDOUT_FILENO, buf, static_cast<size_t>(n))) return 0;  // the client left
    }
    if (fds[0].fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::shutdown(sock, SHUT_WR);
        fds[0].fd = -1;  // poll ignores it; the server's answers still come back
        continue;
      }
      if (!write_all(sock, buf, static_cast<size_t>(n))) return 0;
    }
  }
}

}  // namespace

int run_mcp_relay(const char* program, const char* target) {
  // A client gone is an answer (EPIPE), not a signal that ends the relay mid-write.
  ::signal(SIGPIPE, SIG_IGN);
  std::string why;
  int sock = connect_to(target, why);
  if (sock < 0) {
    std::fprintf(stderr, "%s: cannot reach the MCP server at %s: %s\n", program, target,
                 why.c_str());
    return 1;
  }
  int rc = pump(sock);
  ::close(sock);
  return rc;
}

std::optional<int> mcp_relay_main(int argc, char** argv) {
  if (argc < 2 || argv[1] != kName) return std::nullopt;
  if (argc != 3) {
    std::fprintf(stderr, "usage: awaywork %s SOCKET|127.0.0.1:PORT\n", argv[1]);
    return 2;
  }
  return run_mcp_relay("awaywork __mcp-relay", argv[2]);
}

}  // namespace aw
