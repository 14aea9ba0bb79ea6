// https:// to a bound host (issue 27): the unit's CA and its leaves, then a real curl in the
// sandbox that CONNECTs through the proxy, which terminates its TLS with the unit's CA and adds the
// secret only where a rule says.
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include "egress_inject_fixture.h"

namespace aw {
namespace {

// ---- https:// to a bound host: the proxy terminates TLS with the unit's CA ----

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
  EXPECT_EQ(ca_bundle_env_names().size(), 8u);
}


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

}  // namespace
}  // namespace aw
