// A test HTTP server on the host's 127.0.0.1 (the "internet" of the allowlist tests): answers
// every request with 200 and a marker body, counting what it served.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace aw::test {

struct TinyHttp {
  int fd = -1;
  int port = 0;
  std::atomic<int> served{0};
  std::thread thread;
  TinyHttp() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    port = ntohs(a.sin_port);
    thread = std::thread([this] {
      for (;;) {
        int c = ::accept(fd, nullptr, nullptr);
        if (c < 0) return;  // shut down
        char buf[4096];
        (void)!::read(c, buf, sizeof buf);
        const char reply[] =
            "HTTP/1.1 200 OK\r\nContent-Length: 16\r\nConnection: close\r\n\r\nhello-from-host\n";
        (void)!::write(c, reply, sizeof reply - 1);
        ++served;
        ::close(c);
      }
    });
  }
  ~TinyHttp() {
    ::shutdown(fd, SHUT_RDWR);
    if (thread.joinable()) thread.join();
    ::close(fd);
  }
};

}  // namespace aw::test
