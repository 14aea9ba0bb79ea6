// The inference proxy under load and hostile timing: kept-alive upstream connections, idle agent
// connections, bodies larger than any of its buffers, and the token budget under concurrency.
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "inference_fixture.h"

namespace aw {
namespace {

using IsolateInferencePool = InferenceFixture;

using namespace std::chrono_literals;

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// What read() gives once the peer has been silent: 0 (closed by the proxy) or -1 (our own
// 5 s receive timeout passed first).
ssize_t read_after_silence(int s) {
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  return ::read(s, &c, 1);
}

TEST_F(IsolateInferencePool, HundredSequentialRequestsReuseAtMostThePoolsConnections) {
  start(options());
  std::string token = proxy->issue_token().value();
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(post("/v1/messages", {"x-api-key: " + token}).status, 200);
  EXPECT_EQ(upstream->seen().size(), 100u);
  EXPECT_LE(upstream->connections(), 4);
  EXPECT_EQ(proxy->usage(token).requests, 100);
}

TEST_F(IsolateInferencePool, AnUpstreamClosingAnIdlePooledConnectionLosesAndDoublesNothing) {
  upstream = std::make_unique<test::FakeModelUpstream>(cert, test::FakeUpstreamOptions{.delay_ms = 0, .idle_close_ms = 100, .auth = {}, .redirect_to = {}});
  start(options());
  std::string token = proxy->issue_token().value();
  for (int i = 0; i < 3; ++i) {
    auto r = post("/v1/messages", {"x-api-key: " + token});
    ASSERT_EQ(r.status, 200) << i << r.raw;
    std::this_thread::sleep_for(300ms);  // the fake closes the pooled connection meanwhile
  }
  EXPECT_EQ(upstream->seen().size(), 3u);  // each request once
  EXPECT_EQ(upstream->connections(), 3);   // each on a fresh connection
  EXPECT_EQ(proxy->usage(token).requests, 3);
}

TEST_F(IsolateInferencePool, ASilentAgentConnectionIsClosedAfterTheIdleTimeout) {
  auto o = options();
  o.client_idle = 200ms;
  o.header_timeout = 300ms;
  start(o);
  int idle = connect_tcp(proxy->tcp_port());
  EXPECT_EQ(read_after_silence(idle), 0) << "the proxy kept a silent connection open";
  ::close(idle);
  // A head that never ends is cut off too.
  int slow = connect_tcp(proxy->tcp_port());
  send_all(slow, "POST /v1/messages HTTP/1.1\r\nHost: x\r\n");
  EXPECT_EQ(read_after_silence(slow), 0) << "the proxy waited forever for the rest of a head";
  ::close(slow);
  // A connection in use is not: a request after a pause shorter than the timeout is served.
  std::string token = proxy->issue_token().value();
  int s = connect_tcp(proxy->tcp_port());
  std::this_thread::sleep_for(100ms);
  send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token}, kMessages));
  std::string got;
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(parse_reply(got).status, 200) << got;
}

TEST_F(IsolateInferencePool, ALargeBodyStreamsTheUpstreamGetsItsStartBeforeTheAgentSendsTheRest) {
  start(options());
  std::string token = proxy->issue_token().value();
  std::string body = R"({"model":"fake","max_tokens":16,"messages":[],"pad":")" +
                     std::string(16u << 20, 'x') + R"("})";
  size_t half = 8u << 20;
  int s = connect_tcp(proxy->tcp_port());
  std::string head = fmt::format(
      "POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: {}\r\nContent-Length: {}\r\n"
      "Connection: close\r\n\r\n",
      token, body.size());
  send_all(s, head + body.substr(0, half));
  // The proxy's buffers are 16 KiB: megabytes upstream before the rest exists means it streams.
  EXPECT_TRUE(wait_until([&] { return upstream->body_bytes_in() >= half - (1u << 20); }))
      << "the upstream got " << upstream->body_bytes_in() << " bytes of the first " << half;
  send_all(s, body.substr(half));
  std::string got;
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(parse_reply(got).status, 200) << got.substr(0, 300);
  auto seen = upstream->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].body_size, body.size());
}

TEST_F(IsolateInferencePool, ABodyPastTheCapIs413AndNeverReachesTheUpstreamWhole) {
  auto o = options();
  o.max_body_bytes = 1u << 20;
  start(o);
  std::string token = proxy->issue_token().value();
  std::string body =
      R"({"model":"fake","max_tokens":16,"pad":")" + std::string(2u << 20, 'x') + R"("})";
  auto declared = post("/v1/messages", {"x-api-key: " + token}, body);
  EXPECT_EQ(declared.status, 413) << declared.raw.substr(0, 300);
  // Chunked, so that the size shows only as the body streams.
  std::string piece = body.substr(0, 64u << 10);
  std::string raw = fmt::format(
      "POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: {}\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n",
      token);
  for (int i = 0; i < 32; ++i) raw += fmt::format("{:x}\r\n{}\r\n", piece.size(), piece);
  raw += "0\r\n\r\n";
  int s = connect_tcp(proxy->tcp_port());
  // The proxy may close before taking it all: a short or failed write is part of the case.
  if (::write(s, raw.data(), raw.size()) < 0) SUCCEED();
  std::string got;
  test::drain(s, got);
  ::close(s);
  EXPECT_EQ(parse_reply(got).status, 413) << got.substr(0, 300);
  EXPECT_NE(got.find("larger than the proxy takes"), std::string::npos);
  EXPECT_TRUE(upstream->seen().empty()) << "a cut-off request reached the upstream whole";
}

TEST_F(IsolateInferencePool, TheBudgetHoldsUnder32ConcurrentRequests) {
  auto o = options();
  // Each streaming request holds its max_tokens (16) plus its body's bytes, and uses 25 + 17.
  uint64_t hold = 16 + kMessagesStream.size();
  o.budget_tokens = 10 * hold;
  start(o);
  std::string token = proxy->issue_token().value();
  std::vector<int> status(32);
  std::vector<std::thread> agents;
  for (int i = 0; i < 32; ++i)
    agents.emplace_back([&, i] {
      int s = connect_tcp(proxy->tcp_port());
      send_all(s, request("POST", "/v1/messages", {"x-api-key: " + token, "x-fake-hold: 1"},
                          kMessagesStream));
      std::string got;
      test::drain(s, got);
      ::close(s);
      status[i] = parse_reply(got).status;
    });
  // All 32 decided while the admitted ones are still held at the upstream, unanswered.
  EXPECT_TRUE(
      wait_until([&] { return upstream->seen().size() + proxy->usage(token).refused >= 32; }));
  upstream->release();
  for (auto& a : agents) a.join();
  int ok = 0, refused = 0;
  for (int st : status) (st == 200 ? ok : refused) += st == 200 || st == 403;
  auto u = proxy->usage(token);
  EXPECT_LE(u.input_tokens + u.output_tokens, o.budget_tokens);
  EXPECT_EQ(ok, 10);
  EXPECT_EQ(refused, 22);
  EXPECT_EQ(u.requests, 10);
  EXPECT_EQ(u.refused, 22);
  EXPECT_EQ(upstream->seen().size(), 10u);
  // Settled: what was held is free again, so the next request is judged on real usage.
  EXPECT_EQ(u.input_tokens + u.output_tokens, 10u * (25 + 17));
  EXPECT_EQ(post("/v1/messages", {"x-api-key: " + token}, kMessagesStream).status, 200);
}

}  // namespace
}  // namespace aw
