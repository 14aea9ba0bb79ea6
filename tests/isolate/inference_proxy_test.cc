// The inference proxy, spoken to as an agent CLI would (raw HTTP/1.1 on its loopback port or
// through a sandbox bridge), in front of a fake provider server over real TLS with a certificate
// made for the test. Usage parsing is also pinned on its own, fed one byte at a time.
#include <gtest/gtest.h>

#include <mutex>

#include "fake_model_upstream.h"
#include "harness.h"
#include "isolate/proxy/egress_proxy.h"
#include "isolate/proxy/inference_proxy.h"
#include "isolate/proxy/inference_usage.h"
#include "isolate/proxy/inference_wire.h"

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

std::string dechunk(const std::string& s) {
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

Reply parse_reply(const std::string& raw) {
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

int connect_tcp(uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return s;
}

void send_all(int s, const std::string& data) {
  ASSERT_EQ(::write(s, data.data(), data.size()), static_cast<ssize_t>(data.size()));
}

std::string request(const std::string& method, const std::string& target,
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

TEST_F(IsolateInferenceProxy, RefusesMissingWrongAndRevokedRunTokensWith401InTheProvidersShape) {
  start(options());
  std::string token = proxy->issue_token();
  EXPECT_EQ(token.rfind("awrun-", 0), 0u);
  EXPECT_EQ(token.size(), 6u + 43u);
  EXPECT_NE(token, proxy->issue_token());
  std::string wrong = token;
  wrong.back() = wrong.back() == 'A' ? 'B' : 'A';
  for (const auto& headers :
       std::vector<std::vector<std::string>>{{},
                                             {"x-api-key: " + wrong},
                                             {"Authorization: Bearer " + wrong},
                                             {"x-api-key: " + kApiKey}}) {
    auto r = post("/v1/messages", headers);
    EXPECT_EQ(r.status, 401) << r.raw;
    EXPECT_NE(r.body.find(R"("type":"error")"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("type":"authentication_error")"), std::string::npos) << r.body;
  }
  EXPECT_TRUE(upstream->seen().empty());
  auto ok = post("/v1/messages", {"x-api-key: " + token});
  EXPECT_EQ(ok.status, 200) << ok.raw;
  auto bearer = post("/v1/messages", {"Authorization: Bearer " + token});
  EXPECT_EQ(bearer.status, 200) << bearer.raw;
  EXPECT_EQ(upstream->seen().size(), 2u);
  proxy->revoke(token);
  auto revoked = post("/v1/messages", {"x-api-key: " + token});
  EXPECT_EQ(revoked.status, 401) << revoked.raw;
  EXPECT_EQ(upstream->seen().size(), 2u);
  EXPECT_EQ(proxy->usage(token).requests, 2);
}

TEST_F(IsolateInferenceProxy, OpenAiRefusalsUseOpenAisErrorShape) {
  start(options("openai", kOpenAiKey));
  auto r = post("/v1/responses", {"Authorization: Bearer nope"});
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find(R"({"error":{)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("type":"invalid_request_error")"), std::string::npos) << r.body;
}

TEST_F(IsolateInferenceProxy, UpstreamGetsTheRealKeyInItsHeaderAndNothingOfTheAgentsAuth) {
  struct Case {
    std::string api, key, header;
  };
  for (const Case& c : {Case{"anthropic", kApiKey, "x-api-key: " + kApiKey},
                        Case{"anthropic", kOauthKey, "authorization: Bearer " + kOauthKey},
                        Case{"openai", kOpenAiKey, "authorization: Bearer " + kOpenAiKey}}) {
    upstream.reset();
    proxy.reset();
    auto o = options(c.api, c.key);
    o.upstream += "/base/";
    start(o);
    std::string token = proxy->issue_token();
    std::string target = c.api == "openai" ? "/v1/responses" : "/v1/messages";
    auto r = post(target + "?beta=true",
                  {"x-api-key: " + token, "Authorization: Bearer " + token, "Cookie: session=agent",
                   "Proxy-Authorization: Basic YWdlbnQ6c2VjcmV0", "anthropic-version: 2023-06-01"});
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_EQ(r.head.find("Set-Cookie"), std::string::npos) << r.head;
    auto seen = upstream->seen();
    ASSERT_EQ(seen.size(), 1u);
    const std::string& head = seen[0].head;
    EXPECT_EQ(seen[0].target, "/base" + target + "?beta=true");
    EXPECT_NE(head.find("\r\n" + c.header + "\r\n"), std::string::npos) << c.key << "\n" << head;
    EXPECT_EQ(head.find(token), std::string::npos) << head;
    std::string lower = head;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    EXPECT_EQ(lower.find("cookie"), std::string::npos) << head;
    EXPECT_EQ(lower.find("proxy-authorization"), std::string::npos) << head;
    // Exactly one credential header goes upstream.
    bool bearer = c.header.rfind("authorization", 0) == 0;
    EXPECT_EQ(lower.find("x-api-key") == std::string::npos, bearer) << head;
    EXPECT_EQ(lower.find("\r\nauthorization") == std::string::npos, !bearer) << head;
    EXPECT_NE(head.find(fmt::format("Host: {}:{}",
                                    c.api == "openai" ? "api.openai.test" : "api.anthropic.test",
                                    upstream->port())),
              std::string::npos)
        << head;
    EXPECT_NE(head.find("anthropic-version: 2023-06-01"), std::string::npos) << head;
    if (c.key == kOauthKey) {
      EXPECT_NE(head.find("oauth-2025-04-20"), std::string::npos) << head;
    }
    EXPECT_EQ(seen[0].body, kMessages);
    expect_key_nowhere(c.key);
  }
}

TEST_F(IsolateInferenceProxy, StreamsSseUnbufferedTheFirstEventArrivesBeforeTheLastIsSent) {
  start(options());
  std::string token = proxy->issue_token();
  int s = connect_tcp(proxy->tcp_port());
  send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token, "x-fake-hold: 1"},
                      kMessagesStream));
  std::string got;
  char buf[4096];
  while (got.find("message_start") == std::string::npos) {
    ssize_t n = ::read(s, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  // The upstream holds its last event until released (30 s at most): a proxy that buffered the
  // stream would deliver message_start only after the last event was sent.
  EXPECT_NE(got.find("message_start"), std::string::npos) << got;
  EXPECT_FALSE(upstream->sent_last());
  upstream->release();
  test::drain(s, got);
  ::close(s);
  Reply r = parse_reply(got);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.head.find("Content-Type: text/event-stream"), std::string::npos) << r.head;
  EXPECT_NE(r.body.find("event: message_stop"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.rfind("event: message_start", 0), 0u) << r.body;
}

TEST_F(IsolateInferenceProxy, CountsAnthropicSseAndJsonUsageAndKeepsTheConnectionAlive) {
  start(options());
  std::string token = proxy->issue_token();
  int s = connect_tcp(proxy->tcp_port());
  // Two requests on one connection: the stream first (chunked), then plain JSON.
  send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token}, kMessagesStream, false));
  std::string got;
  char buf[4096];
  while (got.find("0\r\n\r\n") == std::string::npos) {
    ssize_t n = ::read(s, buf, sizeof buf);
    ASSERT_GT(n, 0) << got;
    got.append(buf, static_cast<size_t>(n));
  }
  send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token}, kMessages));
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(upstream->seen().size(), 2u);
  auto u = proxy->usage(token);
  EXPECT_EQ(u.requests, 2);
  EXPECT_EQ(u.input_tokens, 25u + 11u);
  EXPECT_EQ(u.output_tokens, 17u + 7u);
  auto l = lines();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_NE(l[0].find(R"("tokens_in":25,"tokens_out":17)"), std::string::npos) << l[0];
}

TEST_F(IsolateInferenceProxy, CountsOpenAiResponsesSseUsage) {
  start(options("openai", kOpenAiKey));
  std::string token = proxy->issue_token();
  auto r = post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream);
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_NE(r.body.find("response.completed"), std::string::npos);
  auto u = proxy->usage(token);
  EXPECT_EQ(u.input_tokens, 40u);
  EXPECT_EQ(u.output_tokens, 9u);
}

TEST_F(IsolateInferenceProxy, MaxRequestsSpentRefusesTheNextWith403PermissionError) {
  auto o = options();
  o.max_requests = 2;
  start(o);
  std::string token = proxy->issue_token();
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + token}).status, 200);
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + token}).status, 200);
  auto r = post("/v1/messages", {"x-api-key: " + token});
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_NE(r.body.find(R"("type":"permission_error")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("awaywork: the unit's request budget is spent (max_requests 2)"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(upstream->seen().size(), 2u);
  auto u = proxy->usage(token);
  EXPECT_EQ(u.requests, 2);
  EXPECT_EQ(u.refused, 1);
  // Another unit's token has its own count.
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + proxy->issue_token()}).status, 200);
}

TEST_F(IsolateInferenceProxy, TokenBudgetSpentRefusesWith403) {
  auto o = options("openai", kOpenAiKey);
  o.budget_tokens = 50;
  start(o);
  std::string token = proxy->issue_token();
  // 40 + 9 = 49 < 50: the second goes; then 98 >= 50.
  EXPECT_EQ(post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream).status,
            200);
  EXPECT_EQ(post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream).status,
            200);
  auto r = post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream);
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_NE(r.body.find(R"({"error":{)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("budget_tokens 50"), std::string::npos) << r.body;
  EXPECT_EQ(upstream->seen().size(), 2u);
}

TEST_F(IsolateInferenceProxy, UntrustedCertificateIs502AndTheCaFileTrustsIt) {
  auto o = options();
  o.ca_file = "";  // the system store does not know the test's certificate
  start(o);
  std::string token = proxy->issue_token();
  auto r = post("/v1/messages", {"x-api-key: " + token});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("certificate not accepted"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("type":"api_error")"), std::string::npos) << r.body;
  EXPECT_TRUE(upstream->seen().empty());
  proxy.reset();
  start(options());
  token = proxy->issue_token();
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + token}).status, 200);
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, CertificateForAnotherHostnameIs502) {
  upstream = std::make_unique<test::FakeModelUpstream>(other);  // a valid cert for other.test
  auto o = options();
  o.ca_file = other.cert;
  start(o);
  auto r = post("/v1/messages", {"x-api-key: " + proxy->issue_token()});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("hostname mismatch"), std::string::npos) << r.body;
  EXPECT_TRUE(upstream->seen().empty());
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, UnreachableUpstreamIs502WithoutTheKey) {
  auto o = options();
  o.upstream = "https://api.anthropic.test:1";
  start(o);
  auto r = post("/v1/messages", {"x-api-key: " + proxy->issue_token()});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("cannot connect to api.anthropic.test:1"), std::string::npos) << r.body;
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, PlainHttpUpstreamOnLoopbackRelaysAndCounts) {
  upstream = std::make_unique<test::FakeModelUpstream>();  // no certificate: plain HTTP
  auto o = options();
  o.upstream = fmt::format("http://127.0.0.1:{}/", upstream->port());
  start(o);
  std::string token = proxy->issue_token();
  auto r = post("/v1/messages", {"x-api-key: " + token}, kMessagesStream);
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_NE(r.body.find("message_stop"), std::string::npos) << r.body;
  auto seen = upstream->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/v1/messages");
  EXPECT_NE(seen[0].head.find(fmt::format("Host: 127.0.0.1:{}", upstream->port())),
            std::string::npos)
      << seen[0].head;
  EXPECT_EQ(proxy->usage(token).output_tokens, 17u);
}

TEST_F(IsolateInferenceProxy, PathsOutsideAllowPathsGet404AndNeverReachTheUpstream) {
  auto o = options();
  o.allow_paths = {"/v1/messages", "/v1/models*"};
  start(o);
  std::string token = proxy->issue_token();
  EXPECT_EQ(post("/v1/messages?beta=true", {"x-api-key: " + token}).status, 200);
  auto batches = post("/v1/messages/batches", {"x-api-key: " + token});
  EXPECT_EQ(batches.status, 404) << batches.raw;
  EXPECT_NE(batches.body.find(R"("type":"not_found_error")"), std::string::npos) << batches.body;
  EXPECT_EQ(post("/v1/files", {"x-api-key: " + token}).status, 404);
  EXPECT_EQ(upstream->seen().size(), 1u);
  EXPECT_TRUE(path_allowed(o.allow_paths, "/v1/models/claude-x"));
  EXPECT_FALSE(path_allowed(o.allow_paths, "/v1/messagesX"));
  for (const char* sneaky : {"/v1/models/../files", "/v1/models/..", "/v1/models/%2e%2e/files",
                             "/v1/models/.%2E/files", "/v1/models/x%2Ffiles", "/v1/models/./x"})
    EXPECT_FALSE(path_allowed(o.allow_paths, sneaky)) << sneaky;
  EXPECT_TRUE(path_allowed({}, "/anything"));
}

TEST_F(IsolateInferenceProxy, AbsoluteUriAndConnectAre400) {
  start(options());
  std::string token = proxy->issue_token();
  auto abs = call(
      request("POST", fmt::format("https://api.anthropic.test:{}/v1/messages", upstream->port()),
              {"x-api-key: " + token}, kMessages));
  EXPECT_EQ(abs.status, 400) << abs.raw;
  auto connect = call(request("CONNECT", "api.anthropic.test:443", {"x-api-key: " + token}, ""));
  EXPECT_EQ(connect.status, 400) << connect.raw;
  EXPECT_NE(connect.body.find(R"("type":"invalid_request_error")"), std::string::npos);
  EXPECT_TRUE(upstream->seen().empty());
  EXPECT_EQ(proxy->usage(token).requests, 0);
}

TEST_F(IsolateInferenceProxy, LogsOneLinePerRequestWithoutQueryHeadersBodiesOrKey) {
  start(options());
  std::string token = proxy->issue_token();
  post("/v1/messages?secret=QUERYVALUE", {"x-api-key: " + token});
  post("/v1/messages", {"x-api-key: nope"});
  auto l = lines();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_NE(l[0].find(R"("method":"POST")"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("path":"/v1/messages")"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("status":200)"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("upstream_status":200)"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("time":")"), std::string::npos) << l[0];
  EXPECT_NE(l[1].find(R"("refused":"run-token")"), std::string::npos) << l[1];
  for (const auto& line : l)
    for (const std::string& secret : {std::string("QUERYVALUE"), token, kApiKey,
                                      std::string("max_tokens"), std::string("nope")})
      EXPECT_EQ(line.find(secret), std::string::npos) << line;
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, TakesChunkedRequestBodiesAndExpectContinue) {
  start(options());
  std::string token = proxy->issue_token();
  std::string half = kMessages.substr(0, 10), rest = kMessages.substr(10);
  auto chunked = call(fmt::format(
      "POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: {}\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n{:x}\r\n{}\r\n{:x}\r\n{}\r\n0\r\n\r\n",
      token, half.size(), half, rest.size(), rest));
  EXPECT_EQ(chunked.status, 200) << chunked.raw;
  // Expect: 100-continue: the body is sent only after the proxy's interim answer.
  int s = connect_tcp(proxy->tcp_port());
  send_all(s, fmt::format("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: {}\r\n"
                          "Expect: 100-continue\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                          token, kMessages.size()));
  std::string interim;
  char c;
  while (interim.find("\r\n\r\n") == std::string::npos && ::read(s, &c, 1) == 1) interim += c;
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  send_all(s, kMessages);
  std::string got;
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(parse_reply(got).status, 200) << got;
  auto seen = upstream->seen();
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& r : seen) {
    EXPECT_EQ(r.body, kMessages);
    EXPECT_NE(r.head.find(fmt::format("Content-Length: {}", kMessages.size())), std::string::npos);
    EXPECT_EQ(r.head.find("Transfer-Encoding"), std::string::npos) << r.head;
    EXPECT_EQ(r.head.find("Expect"), std::string::npos) << r.head;
  }
}

TEST_F(IsolateInferenceProxy, ListensOnItsUnixSocketToo) {
  start(options());
  std::string token = proxy->issue_token();
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, proxy->socket_path().c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token}, kMessages));
  std::string got;
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(parse_reply(got).status, 200) << got;
  struct stat st {};
  ASSERT_EQ(::stat(proxy->socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(IsolateInferenceProxyOptions, RefusesPlainHttpOffLoopbackAndUnknownApis) {
  InferenceProxyOptions o;
  o.tcp_loopback = true;
  o.api = "anthropic";
  o.credential = kApiKey;
  o.upstream = "http://api.anthropic.com";
  auto p = InferenceProxy::start(o);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("only to loopback"), std::string::npos) << p.error().message;
  EXPECT_EQ(p.error().message.find(kApiKey), std::string::npos);
  o.upstream = "http://127.0.0.1:9";
  EXPECT_TRUE(InferenceProxy::start(o));
  o.api = "gemini";
  EXPECT_FALSE(InferenceProxy::start(o));
}

// ---- a sandboxed agent reaches the proxy through its bridge, and nothing else ----

constexpr const char* kAgent = R"(
import http.client, socket, sys
c = http.client.HTTPConnection('127.0.0.1', 4180, timeout=20)
c.request('POST', '/v1/messages', body='{"model":"fake","max_tokens":16,"messages":[]}',
          headers={'x-api-key': sys.argv[1], 'content-type': 'application/json'})
r = c.getresponse()
print(r.status, r.read().decode())
for port in (int(sys.argv[2]), 443):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=5)
        print('open', port)
    except OSError:
        print('refused')
try:
    socket.create_connection(('192.0.2.1', 443), timeout=5)
    print('outside open')
except OSError:
    print('refused')
)";

TEST_F(IsolateInferenceProxy, SandboxedAgentReachesTheProxyThroughItsBridgeAndNothingElse) {
  start(options());
  std::string token = proxy->issue_token();
  std::string clone = dir.path + "/clone", home = dir.path + "/home";
  ASSERT_TRUE(make_dirs(clone));
  ASSERT_TRUE(make_dirs(home));
  SandboxPlan plan;
  plan.network = Network::none;
  plan.writable = {clone, home};
  plan.limits = Limits{256ull << 20, 128, 1.0};
  plan.apply_limits = ::geteuid() == 0;
  plan.bridges = {{proxy->socket_path(), 4180}};
  auto r =
      test::run_with(make_sandbox_launcher(plan),
                     {"python3", "-c", kAgent, token, std::to_string(upstream->port())}, clone);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out.rfind("200 ", 0), 0u) << r.out << r.err;
  EXPECT_NE(r.out.find("\nrefused\nrefused\nrefused\n"), std::string::npos) << r.out;
  auto seen = upstream->seen();
  ASSERT_EQ(seen.size(), 1u);  // through the bridge only; the upstream's port was not reachable
  EXPECT_NE(seen[0].head.find("x-api-key: " + kApiKey), std::string::npos);
  EXPECT_EQ(seen[0].head.find(token), std::string::npos);
  EXPECT_EQ(r.out.find(kApiKey), std::string::npos);
}

// urllib honours HTTP_PROXY and NO_PROXY, as the agent CLIs do.
constexpr const char* kProxiedAgent = R"(
import sys, urllib.request
req = urllib.request.Request('http://127.0.0.1:4180/v1/messages', method='POST',
    data=b'{"model":"fake","max_tokens":16,"messages":[]}',
    headers={'x-api-key': sys.argv[1], 'content-type': 'application/json'})
try:
    print(urllib.request.urlopen(req, timeout=20).status)
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get('X-Awaywork-Refused'))
)";

TEST_F(IsolateInferenceProxy, AllowlistAgentReachesTheProxyDirectlyNotThroughTheEgressProxy) {
  start(options());
  EgressProxyOptions eo;
  eo.socket_path = dir.path + "/egress.sock";
  auto egress = EgressProxy::start(eo);
  ASSERT_TRUE(egress) << egress.error().message;
  std::string clone = dir.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  SandboxPlan plan;
  plan.network = Network::allowlist;
  plan.proxy_socket = eo.socket_path;
  plan.writable = {clone};
  plan.apply_limits = false;
  plan.bridges = {{proxy->socket_path(), 4180}};
  auto r = test::run_with(make_sandbox_launcher(plan),
                          {"python3", "-c", kProxiedAgent, proxy->issue_token()}, clone);
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.out, "200\n") << r.err;  // through the egress proxy it would be 403 ip-literal
  EXPECT_EQ(upstream->seen().size(), 1u);
}

// ---- usage parsing on its own ----

uint64_t feed_bytewise(UsageMeter& m, const std::string& body) {
  for (char c : body) m.feed(std::string_view(&c, 1));
  m.finish();
  return m.input_tokens() * 1000 + m.output_tokens();
}

TEST(IsolateInferenceUsage, ReadsUsageFromStreamsSplitAtAnyByte) {
  std::string anthropic =
      "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":"
      "{\"input_tokens\":25,\"output_tokens\":1}}}\r\n\r\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":"
      "\"usage\"}}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"usage\":{\"output_tokens\":17}}\n\n";
  UsageMeter a("text/event-stream; charset=utf-8");
  EXPECT_EQ(feed_bytewise(a, anthropic), 25017u);
  std::string openai =
      "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"usage\":"
      "{\"input_tokens\":40,\"output_tokens\":9}}}";  // no final blank line: finish() ends it
  UsageMeter o("text/event-stream");
  EXPECT_EQ(feed_bytewise(o, openai), 40009u);
  UsageMeter j("application/json");
  EXPECT_EQ(feed_bytewise(j, R"({"usage":{"prompt_tokens":3,"completion_tokens":4}})"), 3004u);
  UsageMeter other("text/plain");
  EXPECT_EQ(feed_bytewise(other, R"({"usage":{"input_tokens":3}})"), 0u);
  UsageMeter broken("application/json");
  EXPECT_EQ(feed_bytewise(broken, R"({"usage":{"input_tokens":3)"), 0u);
}

TEST(IsolateInferenceWire, CredentialGoesWhereTheKeyKindNeedsIt) {
  EXPECT_EQ(credential_header("anthropic", kApiKey).first, "x-api-key");
  EXPECT_EQ(credential_header("anthropic", kOauthKey),
            std::make_pair(std::string("authorization"), "Bearer " + kOauthKey));
  EXPECT_EQ(credential_header("openai", kOpenAiKey).first, "authorization");
  EXPECT_TRUE(drop_request_header("X-Api-Key"));
  EXPECT_TRUE(drop_request_header("COOKIE"));
  EXPECT_FALSE(drop_request_header("anthropic-version"));
}

}  // namespace
}  // namespace aw
