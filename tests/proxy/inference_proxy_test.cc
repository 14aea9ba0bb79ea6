// The inference proxy, spoken to as an agent CLI would (raw HTTP/1.1 on its loopback port), in
// front of a fake provider server over real TLS with a certificate made for the test.
#include "inference_fixture.h"

namespace aw {
namespace {

TEST_F(IsolateInferenceProxy, RefusesMissingWrongAndRevokedRunTokensWith401InTheProvidersShape) {
  start(options());
  std::string token = proxy->issue_token().value();
  EXPECT_EQ(token.rfind("awrun-", 0), 0u);
  EXPECT_EQ(token.size(), 6u + 43u);
  EXPECT_NE(token, proxy->issue_token().value());
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

// A unit's rounds: one token each, revoked when its round ends, one budget for them all.
TEST_F(IsolateInferenceProxy, RoundTokensShareTheUnitsBudgetAndEachIsRevokedAlone) {
  auto o = options();
  o.max_requests = 3;
  start(o);
  std::string round1 = proxy->issue_token().value();
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + round1}).status, 200);
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + round1}).status, 200);
  proxy->revoke(round1);
  std::string round2 = proxy->issue_token_sharing(round1).value();
  EXPECT_NE(round2, round1);
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + round1}).status, 401);
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + round2}).status, 200);
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + round2}).status, 403);  // the unit's 3 spent
  EXPECT_EQ(proxy->usage(round2).requests, 3);
  EXPECT_EQ(proxy->usage(round1).requests, 3);
  EXPECT_EQ(upstream->seen().size(), 3u);
  // Another unit's token still has a budget of its own.
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + proxy->issue_token().value()}).status, 200);
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
    std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + proxy->issue_token().value()}).status, 200);
}

TEST_F(IsolateInferenceProxy, TokenBudgetRefusesWith403ARequestThatCouldPassIt) {
  auto o = options("openai", kOpenAiKey);
  o.default_reserve_tokens = 10;  // the body names no max_output_tokens
  // Each request holds 10 + its body's bytes while in flight and then uses 40 + 9 = 49.
  uint64_t hold = 10 + kResponsesStream.size();
  o.budget_tokens = 49 + 49 + hold - 1;  // room for two; the third could pass it
  start(o);
  std::string token = proxy->issue_token().value();
  EXPECT_EQ(post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream).status,
            200);
  EXPECT_EQ(post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream).status,
            200);
  auto r = post("/v1/responses", {"Authorization: Bearer " + token}, kResponsesStream);
  EXPECT_EQ(r.status, 403) << r.raw;
  EXPECT_NE(r.body.find(R"({"error":{)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(fmt::format("budget_tokens {}, used 98", o.budget_tokens)),
            std::string::npos)
      << r.body;
  EXPECT_EQ(upstream->seen().size(), 2u);
  auto u = proxy->usage(token);
  EXPECT_EQ(u.requests, 2);
  EXPECT_EQ(u.refused, 1);
  EXPECT_EQ(u.input_tokens + u.output_tokens, 98u);
}

TEST_F(IsolateInferenceProxy, UntrustedCertificateIs502AndTheCaFileTrustsIt) {
  auto o = options();
  o.ca_file = "";  // the system store does not know the test's certificate
  start(o);
  std::string token = proxy->issue_token().value();
  auto r = post("/v1/messages", {"x-api-key: " + token});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("certificate not accepted"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("type":"api_error")"), std::string::npos) << r.body;
  EXPECT_TRUE(upstream->seen().empty());
  proxy.reset();
  start(options());
  token = proxy->issue_token().value();
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + token}).status, 200);
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, CertificateForAnotherHostnameIs502) {
  upstream = std::make_unique<test::FakeModelUpstream>(other);  // a valid cert for other.test
  auto o = options();
  o.ca_file = other.cert;
  start(o);
  auto r = post("/v1/messages", {"x-api-key: " + proxy->issue_token().value()});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("hostname mismatch"), std::string::npos) << r.body;
  EXPECT_TRUE(upstream->seen().empty());
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, UnreachableUpstreamIs502WithoutTheKey) {
  auto o = options();
  o.upstream = "https://api.anthropic.test:1";
  start(o);
  auto r = post("/v1/messages", {"x-api-key: " + proxy->issue_token().value()});
  EXPECT_EQ(r.status, 502) << r.raw;
  EXPECT_NE(r.body.find("cannot connect to api.anthropic.test:1"), std::string::npos) << r.body;
  expect_key_nowhere(kApiKey);
}

TEST_F(IsolateInferenceProxy, PlainHttpUpstreamOnLoopbackRelaysAndCounts) {
  upstream = std::make_unique<test::FakeModelUpstream>();  // no certificate: plain HTTP
  auto o = options();
  o.upstream = fmt::format("http://127.0.0.1:{}/", upstream->port());
  start(o);
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  std::string token = proxy->issue_token().value();
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
  // Bodies stream through framed as the agent framed them.
  EXPECT_NE(seen[0].head.find("Transfer-Encoding: chunked"), std::string::npos) << seen[0].head;
  EXPECT_NE(seen[1].head.find(fmt::format("Content-Length: {}", kMessages.size())),
            std::string::npos);
  for (const auto& r : seen) {
    EXPECT_EQ(r.body, kMessages);
    EXPECT_EQ(r.head.find("Expect"), std::string::npos) << r.head;
  }
}

TEST_F(IsolateInferenceProxy, ListensOnItsUnixSocketToo) {
  start(options());
  std::string token = proxy->issue_token().value();
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

}  // namespace
}  // namespace aw
