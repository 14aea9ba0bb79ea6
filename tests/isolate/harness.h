// Test harness: call a launcher directly (as the runner's keeper would), wait for the main
// process, and collect its output. Also the fixtures every sandbox test needs.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"

namespace aw::test {

struct Ran {
  bool started = false;
  std::string start_error;
  int status = -1;  // waitpid status
  std::string out, err;
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

inline void drain(int fd, std::string& into) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    into.append(buf, static_cast<size_t>(n));
  }
}

// Runs argv through the launcher; stdout and stderr are read to EOF after the main process ended,
// so a process that outlived the phase and holds them would make this hang (the test's timeout).
inline Ran run_with(const Launcher& launch, std::vector<std::string> argv, std::string cwd = "/",
                    std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                                    "HOME=/nonexistent", "LANG=C"}) {
  Ran r;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) std::abort();
  ExecRequest req;
  req.argv = std::move(argv);
  req.env = std::move(env);
  req.cwd = std::move(cwd);
  req.stdout_fd = out[1];
  req.stderr_fd = err[1];
  auto pid = launch(req);
  ::close(out[1]);
  ::close(err[1]);
  if (!pid) {
    r.start_error = pid.error().message;
    ::close(out[0]);
    ::close(err[0]);
    return r;
  }
  r.started = true;
  // Read both pipes concurrently enough for test outputs (stderr is small).
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) continue;
    for (auto& f : fds) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = ::read(f.fd, buf, sizeof buf);
      if (n > 0) {
        (f.fd == out[0] ? r.out : r.err).append(buf, static_cast<size_t>(n));
      } else {
        ::close(f.fd);
        f.fd = -1;
        --open_fds;
      }
    }
  }
  ::waitpid(*pid, &r.status, 0);
  (void)sweep_sandbox_cgroups();
  return r;
}

inline bool ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

// A test that cannot run on this host (not root, no such cgroup hierarchy) skips, except under
// CI=true, where a skip would hide that CI never ran it: there it is a failure. `why` may be a
// stream (`"no " << c << " here"`). Returns from the test (or its SetUp) either way.
#define AW_SKIP_OR_FAIL(why)                                      \
  do {                                                            \
    if (::aw::test::ci()) FAIL() << why << " (CI=true: no skip)"; \
    GTEST_SKIP() << why;                                          \
  } while (0)

// A fresh folder under /var/tmp (outside the sandbox's private /tmp), removed at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/var/tmp/aw-sbx-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { (void)remove_tree(path); }
};

// A tiny upstream server on 127.0.0.1: reads until a blank line (or any bytes that are not HTTP),
// records what it got, answers "200 hello" and closes.
struct Upstream {
  int fd = -1;
  uint16_t port = 0;
  std::thread thread;
  std::mutex mu;
  std::vector<std::string> got;
  Upstream() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0)
      std::abort();
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    thread = std::thread([this] {
      for (;;) {
        int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        std::string req;
        char buf[4096];
        ssize_t n;
        while (req.find("\r\n\r\n") == std::string::npos && (n = ::read(c, buf, sizeof buf)) > 0) {
          req.append(buf, static_cast<size_t>(n));
          if (static_cast<unsigned char>(req[0]) == 0x16) break;  // a TLS hello: answer anyway
        }
        {
          std::lock_guard<std::mutex> l(mu);
          got.push_back(req);
        }
        const char* resp = "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        (void)!::write(c, resp, std::strlen(resp));
        ::close(c);
      }
    });
  }
  ~Upstream() {
    ::shutdown(fd, SHUT_RDWR);
    thread.join();
    ::close(fd);
  }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> l(mu);
    return got;
  }
};

// A unix-socket server outside the sandbox (what a bridge leads to): answers every connection
// with "pong <n>\n" and closes.
struct UnixServer {
  std::string path;
  int fd = -1;
  std::thread thread;
  std::atomic<int> served{0};
  explicit UnixServer(std::string p) : path(std::move(p)) {
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0)
      std::abort();
    thread = std::thread([this] {
      for (;;) {
        int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        std::string msg = "pong " + std::to_string(++served) + "\n";
        (void)!::write(c, msg.data(), msg.size());
        ::close(c);
      }
    });
  }
  ~UnixServer() {
    ::shutdown(fd, SHUT_RDWR);
    thread.join();
    ::close(fd);
    ::unlink(path.c_str());
  }
};

}  // namespace aw::test
