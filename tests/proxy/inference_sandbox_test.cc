// The inference proxy seen from inside a sandbox (through its bridge, and nothing else), and its
// usage parsing and credential placement pinned on their own, fed one byte at a time.
#include "inference_fixture.h"

namespace aw {
namespace {

// Its own suite name: the fixture (anonymous namespace) is another class in this file.
using IsolateInferenceProxyInSandbox = InferenceFixture;

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

TEST_F(IsolateInferenceProxyInSandbox,
       SandboxedAgentReachesTheProxyThroughItsBridgeAndNothingElse) {
  start(options());
  std::string token = proxy->issue_token().value();
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

TEST_F(IsolateInferenceProxyInSandbox,
       AllowlistAgentReachesTheProxyDirectlyNotThroughTheEgressProxy) {
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
                          {"python3", "-c", kProxiedAgent, proxy->issue_token().value()}, clone);
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
