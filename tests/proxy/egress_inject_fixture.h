// The egress proxy with injection rules in front of fake upstreams (a bound host over real TLS
// with a test certificate, another host over plain HTTP), spoken to over its unix socket as the
// sandbox's bridge does, or by a real curl in the sandbox: the fixtures of the egress_inject_*
// tests (issue 27, DESIGN.md invariant 11).
#pragma once

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/un.h>
#include <unistd.h>

#include <utility>

#include "../fakes/spawn_fake.h"
#include "inference_fixture.h"
#include "proxy/egress_policy.h"
#include "proxy/unit_ca.h"

// In namespace aw, not an anonymous one: several files run tests of one suite on these fixtures,
// and GoogleTest requires one fixture type per suite.
namespace aw {

// Fake tokens shaped like real ones; never real credentials.
inline const std::string kNpmToken = "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123";
inline const std::string kPlaceholder =
    "awaywork-placeholder-NPM_TOKEN-0123456789abcdef0123456789abcdef";
inline const std::string kGitPass = "glpat-FAKEfakeFAKEfake1234";

inline EgressInjection npm_rule() {
  EgressInjection r;
  r.secret = "NPM_TOKEN";
  r.value = kNpmToken;
  r.host = "npm.example.test";
  r.methods = {"GET", "HEAD"};
  r.paths = {"/pkg/"};
  return r;
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

inline size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t p = text.find(part); p != std::string::npos; p = text.find(part, p + 1)) ++n;
  return n;
}

inline X509* load_pem(const std::string& pem) {
  BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(b, nullptr, nullptr, nullptr);
  BIO_free(b);
  return x;
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

}  // namespace aw
