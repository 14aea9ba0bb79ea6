// The byte pump of both bridges (isolate/relay.h), between two socket pairs: "client" is the
// phase's side, "server" the proxy's. The relay runs in a child process, as it does in the
// bridges, so that a relay killed by a signal shows as a lost answer, not a dead test.
#include "isolate/relay.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace aw {
namespace {

struct Pair {
  int outer = -1;  // the test's end
  int inner = -1;  // the relay's end
  Pair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0) {
      outer = fds[0];
      inner = fds[1];
    }
  }
};

// Forks the relay between the two inner ends; the parent keeps the outer ends only.
pid_t start_relay(Pair& client, Pair& server) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGPIPE, SIG_DFL);  // as in the sandbox's bridge process (sandbox/child.cc)
    ::close(client.outer);
    ::close(server.outer);
    relay_both_ways(client.inner, server.inner);
    ::_exit(0);
  }
  ::close(client.inner);
  ::close(server.inner);
  return pid;
}

std::string read_exactly(int fd, size_t n) {
  std::string got(n, '\0');
  size_t off = 0;
  while (off < n) {
    ssize_t r = ::read(fd, got.data() + off, n - off);
    if (r <= 0) break;
    off += static_cast<size_t>(r);
  }
  got.resize(off);
  return got;
}

std::string read_to_end(int fd) {
  std::string all;
  char buf[4096];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r <= 0) return all;
    all.append(buf, static_cast<size_t>(r));
  }
}

// MSG_NOSIGNAL: a relay that died must fail the test, not kill it.
bool put(int fd, const std::string& s) {
  return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size());
}

// The relay started between the two pairs; how it ended, "" for a clean exit.
class Relay : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GE(client.outer, 0);
    ASSERT_GE(server.outer, 0);
    relay = start_relay(client, server);
    ASSERT_GT(relay, 0);
  }
  std::string how_it_ended() {
    int status = 0;
    if (::waitpid(relay, &status, 0) != relay) return "not waited for";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
    if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
    return "status " + std::to_string(status);
  }
  Pair client, server;
  pid_t relay = -1;
};

TEST_F(Relay, CarriesARequestAndItsAnswerAndPassesTheHalfCloseOn) {
  ASSERT_TRUE(put(client.outer, "request"));
  ::shutdown(client.outer, SHUT_WR);
  EXPECT_EQ(read_to_end(server.outer), "request") << "the client's half-close reaches the server";
  ASSERT_TRUE(put(server.outer, "answer"));
  ::close(server.outer);
  EXPECT_EQ(read_to_end(client.outer), "answer");
  EXPECT_EQ(how_it_ended(), "");
  ::close(client.outer);
}

// The bridge-pairs flake: bash's printf writes a request line by line, and a server that answers
// (and closes) before it has read all of it left the relay with the rest of the request to
// deliver and the answer to read at once. The relay wrote first, met the closed server (EPIPE,
// and SIGPIPE killed it) and the answer, already sent, never reached the client. HTTP servers do
// answer early (a refused token, a body too large), so the answer must get through.
TEST_F(Relay, AnAnswerSentBeforeTheServerReadTheWholeRequestStillReachesTheClient) {
  ASSERT_TRUE(put(client.outer, "GET / HTTP/1.1\r\n"));
  ASSERT_EQ(read_exactly(server.outer, 16), "GET / HTTP/1.1\r\n");
  // Stopped, the relay finds both the rest of the request and the answer waiting when it wakes:
  // the order the load made happen by chance, made certain.
  ASSERT_EQ(::kill(relay, SIGSTOP), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(relay, &status, WUNTRACED), relay);
  ASSERT_TRUE(WIFSTOPPED(status));
  const std::string answer = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n";
  ASSERT_TRUE(put(server.outer, answer));
  ::close(server.outer);
  ASSERT_TRUE(put(client.outer, "Host: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  ASSERT_EQ(::kill(relay, SIGCONT), 0);
  EXPECT_EQ(read_to_end(client.outer), answer);
  ::close(client.outer);
  EXPECT_EQ(how_it_ended(), "");
}

// The same from the other side: a client that goes away while the server is still sending costs
// the relay nothing but that connection (it ends, it is not killed mid-way).
TEST_F(Relay, AClientGoneBeforeTheAnswerEndsTheRelayWithoutASignal) {
  ASSERT_TRUE(put(client.outer, "request"));
  ASSERT_EQ(read_exactly(server.outer, 7), "request");
  ::close(client.outer);
  std::string big(1 << 20, 'x');  // more than any socket buffer: the relay must write into the void
  (void)!::send(server.outer, big.data(), big.size(), MSG_NOSIGNAL);
  ::close(server.outer);
  EXPECT_EQ(how_it_ended(), "");
}

}  // namespace
}  // namespace aw
