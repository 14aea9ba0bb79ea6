// Shared by the inference proxy's tests: raw HTTP/1.1 as an agent CLI speaks it, and a fixture
// that starts the proxy in front of the fake provider server (fake_model_upstream.h) over real TLS.
#pragma once

#include <sys/socket.h>

#include <cstring>

#include <cerrno>

#include <gtest/gtest.h>

#include <mutex>

#include "fake_model_upstream.h"
#include "harness.h"
#include "proxy/egress_proxy.h"
#include "proxy/inference_proxy.h"
#include "proxy/inference_usage.h"
#include "proxy/inference_wire.h"

namespace aw {
namespace {

// Fake keys shaped like real ones; never real credentials.
const std::string kApiKey = "sk-ant-api03-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake-AAAA";
const std::string kOauthKey = "sk-ant-oat01-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake-BBBB";
const std::string kOpenAiKey = "sk-proj-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeCCCC";
const std::string kMessages = R"({"model":"fake","max_tokens":16,"messages":[]})";
const std::string kMessagesStream =
    R"({"model":"fake","max_tokens":16,"stream":true,"messages":[]})";
const std::string kResponsesStream = R"({"model":"fake","stream":true,"input":"hi"})";

struct Reply {
  int status = 0;
  std::string head, body, raw;
};

inline std::string dechunk(const std::string& s) {
  std::string out;
  size_t p = 0;
  for (;;) {
    size_t eol = s.find("\r\n", p);
    if (eol == std::string::npos) return out;
    size_t n = std::strtoul(s.substr(p, eol - p).c_str(), nullptr, 16);
    if (n == 0) return out;
    out += s.substr(eol + 2, n);
    p = eol + 2 + n + 2;
  }
}

inline Reply parse_reply(const std::string& raw) {
  Reply r;
  r.raw = raw;
  size_t end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || end == std::string::npos) return r;
  r.status = std::atoi(raw.substr(9, 3).c_str());
  r.head = raw.substr(0, end + 2);
  r.body = raw.substr(end + 4);
  if (r.head.find("Transfer-Encoding: chunked") != std::string::npos) r.body = dechunk(r.body);
  return r;
}

inline int connect_tcp(uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return s;
}

// Sends data whole, unless the proxy answers and closes first (a 413 on a declared length):
// then what it answered is the test's to read.
inline void send_all(int s, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(s, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) return;
    ASSERT_GT(n, 0) << "send: " << std::strerror(errno);
    done += static_cast<size_t>(n);
  }
}

inline std::string request(const std::string& method, const std::string& target,
                           const std::vector<std::string>& headers, const std::string& body,
                           bool close = true) {
  std::string r = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& h : headers) r += h + "\r\n";
  if (!body.empty())
    r += fmt::format("Content-Type: application/json\r\nContent-Length: {}\r\n", body.size());
  if (close) r += "Connection: close\r\n";
  return r + "\r\n" + body;
}

struct InferenceFixture : ::testing::Test {
  test::TempDir dir;
  test::TestCert cert, other;
  std::unique_ptr<test::FakeModelUpstream> upstream;
  std::unique_ptr<InferenceProxy> proxy;
  std::mutex mu;
  std::vector<std::string> log;
  std::vector<Reply> replies;  // every reply, to scan for the real key

  void SetUp() override {
    cert = test::make_test_cert(dir.path, "fake-api", {"api.anthropic.test", "api.openai.test"});
    other = test::make_test_cert(dir.path, "other", {"other.test"});
    ASSERT_FALSE(cert.cert.empty() || other.cert.empty()) << "the openssl CLI made no certificate";
  }

  InferenceProxyOptions options(const std::string& api = "anthropic",
                                const std::string& key = kApiKey) {
    if (!upstream) upstream = std::make_unique<test::FakeModelUpstream>(cert);
    InferenceProxyOptions o;
    o.socket_path = dir.path + "/inference.sock";
    o.tcp_loopback = true;
    o.api = api;
    std::string host = api == "openai" ? "api.openai.test" : "api.anthropic.test";
    o.upstream = fmt::format("https://{}:{}", host, upstream->port());
    o.credential = key;
    o.ca_file = cert.cert;
    o.static_hosts = {{host, "127.0.0.1"}};
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    return o;
  }

  void start(InferenceProxyOptions o) {
    auto p = InferenceProxy::start(std::move(o));
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }

  Reply call(const std::string& raw) {
    int s = connect_tcp(proxy->tcp_port());
    send_all(s, raw);
    std::string got;
    test::drain(s, got);
    ::close(s);
    Reply r = parse_reply(got);
    replies.push_back(r);
    return r;
  }

  Reply post(const std::string& target, const std::vector<std::string>& headers,
             const std::string& body = kMessages) {
    return call(request("POST", target, headers, body));
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> l(mu);
    return log;
  }

  // The real key in nothing the agent or the record can see.
  void expect_key_nowhere(const std::string& key) {
    for (const auto& r : replies) EXPECT_EQ(r.raw.find(key), std::string::npos) << r.raw;
    for (const auto& l : lines()) EXPECT_EQ(l.find(key), std::string::npos) << l;
  }
};

using IsolateInferenceProxy = InferenceFixture;

}  // namespace
}  // namespace aw
