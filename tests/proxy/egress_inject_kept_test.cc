// One TLS connection through the proxy to a bound host carrying several requests (issue 27,
// keep-alive): each request is checked and gets its secret on its own, and a head the proxy
// cannot frame ends the connection.
#include <openssl/ssl.h>
#include <sys/time.h>

#include <algorithm>

#include "egress_inject_fixture.h"

namespace aw {
namespace {

// A client of the proxy's socket that CONNECTs to host:port and speaks TLS inside, trusting only
// trust_pem, as curl does; but every request is the test's own, so a later request on the same
// connection can say what curl would not. Reads give up after 20 s (a proxy that hangs fails).
class KeptTls {
 public:
  KeptTls(const std::string& socket_path, const std::string& host, uint16_t port,
          const std::string& trust_pem) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{20, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket_path.c_str(), sizeof a.sun_path - 1);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    std::string hp = fmt::format("{}:{}", host, port);
    send_all(fd_, fmt::format("CONNECT {} HTTP/1.1\r\nHost: {}\r\n\r\n", hp, hp));
    std::string head;  // byte by byte, so that no byte of the TLS is taken with it
    char c;
    while (head.find("\r\n\r\n") == std::string::npos && ::read(fd_, &c, 1) == 1) head += c;
    if (head.rfind("HTTP/1.1 200", 0) != 0) return;
    ctx_ = SSL_CTX_new(TLS_client_method());
    X509* ca = load_pem(trust_pem);
    if (!ca) return;
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_), ca);
    X509_free(ca);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    ssl_ = SSL_new(ctx_);
    SSL_set_tlsext_host_name(ssl_, host.c_str());
    SSL_set1_host(ssl_, host.c_str());
    SSL_set_fd(ssl_, fd_);
    ok_ = SSL_connect(ssl_) == 1;
  }
  ~KeptTls() {
    if (ssl_) SSL_free(ssl_);
    if (ctx_) SSL_CTX_free(ctx_);
    if (fd_ >= 0) ::close(fd_);
  }
  KeptTls(const KeptTls&) = delete;
  KeptTls& operator=(const KeptTls&) = delete;

  bool ok() const { return ok_; }
  bool send(const std::string& data) {
    return SSL_write(ssl_, data.data(), static_cast<int>(data.size())) ==
           static_cast<int>(data.size());
  }
  // One response: its head, then as many bytes as its Content-Length says.
  std::string response() {
    while (buf_.find("\r\n\r\n") == std::string::npos && fill()) {
    }
    size_t end = buf_.find("\r\n\r\n");
    if (end == std::string::npos) return std::exchange(buf_, "");
    std::string head = buf_.substr(0, end + 2);
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    size_t len = 0;
    if (size_t at = head.find("\r\ncontent-length:"); at != std::string::npos)
      len = std::strtoul(head.c_str() + at + 17, nullptr, 10);
    while (buf_.size() < end + 4 + len && fill()) {
    }
    std::string out = buf_.substr(0, std::min(buf_.size(), end + 4 + len));
    buf_.erase(0, out.size());
    return out;
  }
  // One chunked response: its head, then its chunks up to the last (empty) one, still encoded.
  std::string chunked_response() {
    while (buf_.find("\r\n\r\n") == std::string::npos && fill()) {
    }
    size_t end = buf_.find("\r\n\r\n");
    if (end == std::string::npos) return std::exchange(buf_, "");
    size_t last;
    while ((last = buf_.find("\r\n0\r\n\r\n", end + 2)) == std::string::npos && fill()) {
    }
    if (last == std::string::npos) return std::exchange(buf_, "");
    std::string out = buf_.substr(0, last + 7);
    buf_.erase(0, out.size());
    return out;
  }
  // How the proxy ended the connection: SSL_ERROR_ZERO_RETURN after a close_notify.
  int end() {
    char b[4096];
    int n;
    while ((n = SSL_read(ssl_, b, sizeof b)) > 0) buf_.append(b, static_cast<size_t>(n));
    return SSL_get_error(ssl_, n);
  }

 private:
  bool fill() {
    char b[4096];
    int n = SSL_read(ssl_, b, sizeof b);
    if (n <= 0) return false;
    buf_.append(b, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  bool ok_ = false;
  std::string buf_;
};

TEST_F(IsolateEgressInjectHttps, OneTlsConnectionCarriesSeveralRequestsEachCheckedOnItsOwn) {
  bound.reset();
  bound = std::make_unique<test::FakeModelUpstream>(
      cert, test::FakeUpstreamOptions{0, 0, "Bearer " + kNpmToken, ""});
  start();
  KeptTls c(proxy->socket_path(), "npm.example.test", bound->port(), proxy->ca_cert_pem());
  ASSERT_TRUE(c.ok()) << "the handshake with the unit's CA";
  std::string host = fmt::format("Host: npm.example.test:{}\r\n", bound->port());
  // A body of a declared length with the next request right behind it (pipelined): the proxy
  // sends the body's bytes alone, then reads and checks the next request itself.
  ASSERT_TRUE(c.send("POST /pkg/a HTTP/1.1\r\n" + host + "Content-Length: 5\r\n\r\nhello" +
                     "GET /pkg/b HTTP/1.1\r\n" + host + "Authorization: Bearer " + kPlaceholder +
                     "\r\n\r\n"));
  replies.push_back(c.response());
  replies.push_back(c.response());
  EXPECT_EQ(replies[0].rfind("HTTP/1.1 401", 0), 0u) << replies[0];  // POST: not the rule's
  EXPECT_EQ(replies[1].rfind("HTTP/1.1 200", 0), 0u) << replies[1];
  EXPECT_NE(replies[1].find("private ok\n"), std::string::npos) << replies[1];
  // Another host's name, on the connection the proxy kept: refused, and the connection ends,
  // with a close_notify.
  ASSERT_TRUE(c.send("GET /pkg/c HTTP/1.1\r\nHost: other.test\r\nAuthorization: Bearer " +
                     kPlaceholder + "\r\n\r\n"));
  replies.push_back(c.response());
  EXPECT_EQ(replies[2].rfind("HTTP/1.1 403", 0), 0u) << replies[2];
  EXPECT_NE(replies[2].find("deny host-header-mismatch"), std::string::npos) << replies[2];
  EXPECT_EQ(c.end(), SSL_ERROR_ZERO_RETURN) << "the phase's TLS ends with a close_notify";
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 2u) << "the third request went nowhere";
  EXPECT_EQ(seen[0].target, "/pkg/a");
  EXPECT_EQ(seen[0].body, "hello");
  EXPECT_EQ(seen[0].head.find(kNpmToken), std::string::npos) << seen[0].head;
  EXPECT_EQ(seen[1].target, "/pkg/b");
  EXPECT_NE(seen[1].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[1].head;
  EXPECT_EQ(count(seen[1].head, "Authorization:"), 1u);
  EXPECT_EQ(bound->connections(), 1) << "the upstream connection is kept alive too";
  expect_value_nowhere();
}

// An answer whose end is its last chunk (a streamed model reply) is relayed whole, re-chunked,
// and the connection carries the next request.
TEST_F(IsolateEgressInjectHttps, AChunkedAnswerLeavesTheConnectionForTheNextRequest) {
  start();
  KeptTls c(proxy->socket_path(), "npm.example.test", bound->port(), proxy->ca_cert_pem());
  ASSERT_TRUE(c.ok());
  std::string host = fmt::format("Host: npm.example.test:{}\r\n", bound->port());
  std::string body = R"({"model":"fake","stream":true,"messages":[]})";
  ASSERT_TRUE(c.send(fmt::format("POST /v1/messages HTTP/1.1\r\n{}Content-Type: application/json"
                                 "\r\nContent-Length: {}\r\n\r\n{}",
                                 host, body.size(), body)));
  replies.push_back(c.chunked_response());
  EXPECT_EQ(replies[0].rfind("HTTP/1.1 200", 0), 0u) << replies[0];
  EXPECT_NE(replies[0].find("Transfer-Encoding: chunked"), std::string::npos) << replies[0];
  EXPECT_NE(replies[0].find("message_stop"), std::string::npos) << replies[0];
  ASSERT_TRUE(c.send("GET /pkg/b HTTP/1.1\r\n" + host + "\r\n"));
  replies.push_back(c.response());
  EXPECT_EQ(replies[1].rfind("HTTP/1.1 404", 0), 0u) << replies[1];
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].body, body);
  EXPECT_EQ(seen[0].head.find(kNpmToken), std::string::npos) << "POST is not the rule's";
  EXPECT_NE(seen[1].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[1].head;
  EXPECT_EQ(bound->connections(), 1);
  expect_value_nowhere();
}

// A header line the proxy and an upstream could frame differently (a folded line hiding a
// Transfer-Encoding, two lengths) would let a body carry a second request the proxy never
// checked: refused.
TEST_F(IsolateEgressInjectHttps, AKeptConnectionRefusesHeadersItCannotFrame) {
  start();
  std::string host = fmt::format("Host: npm.example.test:{}\r\n", bound->port());
  for (const std::string& bad : {std::string("X-A: b\r\n Transfer-Encoding: chunked\r\n"),
                                 std::string("Transfer-Encoding : chunked\r\n"),
                                 std::string("Content-Length: 3\r\nContent-Length: 30\r\n"),
                                 std::string("Content-Length: +3\r\n")}) {
    KeptTls c(proxy->socket_path(), "npm.example.test", bound->port(), proxy->ca_cert_pem());
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(c.send("POST /pkg/a HTTP/1.1\r\n" + host + bad + "\r\nabc"));
    std::string got = c.response();
    EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << bad << got;
    EXPECT_TRUE(got.find("deny bad-header-line") != std::string::npos ||
                got.find("deny bad-content-length") != std::string::npos)
        << bad << got;
  }
  EXPECT_TRUE(bound->seen().empty());
}

}  // namespace
}  // namespace aw
