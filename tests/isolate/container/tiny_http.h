// A test HTTP server outside the container: on the host's 127.0.0.1 (the "internet" of the
// allowlist tests), or on a 0600 unix socket (a proxy of awaywork's, as the bridge sees one).
// Answers every request with 200 and a marker body, counting what it served. It answers from its
// first read and closes: bash's printf writes a request line by line, so this is often before the
// whole request came, an early answer the bridges must still deliver (tests/isolate/relay_test.cc).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

namespace aw::test {

struct TinyHttp {
  int fd = -1;
  int port = 0;  // TCP only
  std::string socket_path;
  std::atomic<int> served{0};
  std::thread thread;

  TinyHttp() : TinyHttp("", "hello-from-host\n") {}
  // unix_path "": TCP on 127.0.0.1, an ephemeral port; else a unix socket there, mode 0600.
  TinyHttp(const std::string& unix_path, const std::string& body) : socket_path(unix_path) {
    if (!listen_on(unix_path)) return;
    std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n" + body;
    thread = std::thread([this, reply] {
      for (;;) {
        int c = ::accept(fd, nullptr, nullptr);
        if (c < 0) return;  // shut down
        char buf[4096];
        (void)!::read(c, buf, sizeof buf);
        (void)!::write(c, reply.data(), reply.size());
        ++served;
        ::close(c);
      }
    });
  }
  ~TinyHttp() {
    ::shutdown(fd, SHUT_RDWR);
    if (thread.joinable()) thread.join();
    ::close(fd);
    if (!socket_path.empty()) ::unlink(socket_path.c_str());
  }
  bool listening() const { return thread.joinable(); }

 private:
  bool listen_on(const std::string& unix_path) {
    if (unix_path.empty()) {
      fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof a;
      if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return false;
      port = ntohs(a.sin_port);
      return true;
    }
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un u{};
    u.sun_family = AF_UNIX;
    std::snprintf(u.sun_path, sizeof u.sun_path, "%s", unix_path.c_str());
    mode_t old = ::umask(0177);  // 0600, like awaywork's proxies' sockets
    bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&u), sizeof u) == 0;
    ::umask(old);
    return ok && ::listen(fd, 16) == 0;
  }
};

}  // namespace aw::test
