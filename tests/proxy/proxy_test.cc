// The egress proxy (network: allowlist): its policy as pure functions, then the server itself
// spoken to over its unix socket exactly as the in-sandbox bridge does.
#include <gtest/gtest.h>
#include <sys/un.h>

#include "harness.h"
#include "isolate/probe/probes.h"
#include "proxy/egress_policy.h"
#include "proxy/egress_proxy.h"

namespace aw {
namespace {

TEST(IsolateEgressPolicy, ExactWildcardAndIpRules) {
  std::vector<std::string> allow = {"api.example.com", "*.github.com", "10.1.2.3"};
  EXPECT_TRUE(decide_host(allow, "api.example.com").allowed);
  EXPECT_TRUE(decide_host(allow, "API.Example.com.").allowed);
  EXPECT_FALSE(decide_host(allow, "example.com").allowed);
  EXPECT_FALSE(decide_host(allow, "evil-api.example.com").allowed);
  EXPECT_TRUE(decide_host(allow, "codeload.github.com").allowed);
  EXPECT_EQ(decide_host(allow, "codeload.github.com").rule, "allow *.github.com");
  EXPECT_FALSE(decide_host(allow, "github.com").allowed);  // the wildcard is not the apex
  EXPECT_FALSE(decide_host(allow, "github.com.evil.org").allowed);
  EXPECT_TRUE(decide_host(allow, "10.1.2.3").allowed);
  EXPECT_EQ(decide_host(allow, "10.1.2.4").rule, "deny ip-literal");
  EXPECT_EQ(decide_host(allow, "[::1]").rule, "deny ip-literal");
  EXPECT_EQ(decide_host(allow, "other.org").rule, "deny not-listed");
}

TEST(IsolateEgressPolicy, ReadsTheSniOfAClientHelloAndNothingElse) {
  bool complete = false;
  auto hello = make_client_hello("api.example.com");
  EXPECT_EQ(client_hello_sni(hello, &complete), "api.example.com");
  EXPECT_TRUE(complete);
  EXPECT_EQ(client_hello_sni(hello.substr(0, 20), &complete), std::nullopt);
  EXPECT_FALSE(complete);  // more bytes could still bring the name
  EXPECT_EQ(client_hello_sni("GET / HTTP/1.1\r\n", &complete), std::nullopt);
  EXPECT_TRUE(complete);
}

struct ProxyFixture : ::testing::Test {
  test::TempDir dir;
  test::Upstream up;
  std::mutex mu;
  std::vector<std::string> log;
  std::unique_ptr<EgressProxy> proxy;
  std::string hp(const char* host) { return fmt::format("{}:{}", host, up.port); }

  void start(bool check_sni = true) {
    EgressProxyOptions o;
    o.socket_path = dir.path + "/proxy.sock";
    o.allow = {"allowed.test"};
    o.static_hosts = {{"allowed.test", "127.0.0.1"}, {"other.test", "127.0.0.1"}};
    o.allow_private_upstream = true;
    o.check_sni = check_sni;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> l(mu);
      log.push_back(line);
    };
    auto p = EgressProxy::start(o);
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
  }
  int connect() {
    int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, proxy->socket_path().c_str(), sizeof a.sun_path - 1);
    EXPECT_EQ(::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return s;
  }
  std::string roundtrip(const std::string& send) {
    int s = connect();
    (void)!::write(s, send.data(), send.size());
    std::string got;
    test::drain(s, got);
    ::close(s);
    return got;
  }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> l(mu);
    return log;
  }
};

using IsolateEgressProxy = ProxyFixture;

TEST_F(IsolateEgressProxy, ForwardsAllowedPlainHttpInOriginFormAndLogsWithoutQuery) {
  start();
  auto got = roundtrip("GET http://" + hp("allowed.test") +
                       "/path?token=SECRET HTTP/1.1\r\nHost: " + hp("allowed.test") + "\r\n\r\n");
  EXPECT_EQ(got.substr(0, 15), "HTTP/1.0 200 OK");
  ASSERT_EQ(up.requests().size(), 1u);
  EXPECT_EQ(up.requests()[0], "GET /path?token=SECRET HTTP/1.1\r\nHost: " + hp("allowed.test") +
                                  "\r\nConnection: close\r\n\r\n");
  auto l = lines();
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(
      l[0],
      fmt::format(
          R"({{"method":"GET","host":"allowed.test","port":{},"path":"/path","allowed":true,"rule":"allow allowed.test"}})",
          up.port));
}

TEST_F(IsolateEgressProxy, RefusesOtherHostsIpLiteralsAndFrontedHostHeadersWith403) {
  start();
  auto other = roundtrip("GET http://" + hp("other.test") +
                         "/ HTTP/1.1\r\nHost: " + hp("other.test") + "\r\n\r\n");
  EXPECT_EQ(other.substr(0, 12), "HTTP/1.1 403");
  EXPECT_NE(other.find("X-Awaywork-Refused: deny not-listed"), std::string::npos) << other;
  auto ip = roundtrip("CONNECT " + hp("127.0.0.1") + " HTTP/1.1\r\n\r\n");
  EXPECT_NE(ip.find("X-Awaywork-Refused: deny ip-literal"), std::string::npos) << ip;
  auto fronted =
      roundtrip("GET http://" + hp("allowed.test") + "/ HTTP/1.1\r\nHost: other.test\r\n\r\n");
  EXPECT_NE(fronted.find("X-Awaywork-Refused: deny host-header-mismatch"), std::string::npos)
      << fronted;
  auto junk = roundtrip("POST /relative HTTP/1.1\r\n\r\n");
  EXPECT_EQ(junk.substr(0, 12), "HTTP/1.1 403");
  EXPECT_TRUE(up.requests().empty());
  EXPECT_EQ(lines().size(), 4u);
}

TEST_F(IsolateEgressProxy, TunnelsConnectOnlyWhenTheSniNamesTheConnectHost) {
  start();
  for (const std::string sni : {"allowed.test", "other.test"}) {
    int s = connect();
    std::string req = "CONNECT " + hp("allowed.test") + " HTTP/1.1\r\n\r\n";
    ASSERT_EQ(::write(s, req.data(), req.size()), static_cast<ssize_t>(req.size()));
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos && ::read(s, &c, 1) == 1) head += c;
    EXPECT_EQ(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    auto hello = make_client_hello(sni);
    ASSERT_EQ(::write(s, hello.data(), hello.size()), static_cast<ssize_t>(hello.size()));
    std::string rest;
    test::drain(s, rest);
    ::close(s);
    if (sni == "allowed.test")
      EXPECT_EQ(rest.substr(0, 15), "HTTP/1.0 200 OK");
    else
      EXPECT_EQ(rest, "");
  }
  EXPECT_EQ(up.requests().size(), 1u);  // the fronted hello never reached the upstream
  auto l = lines();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_NE(l[1].find("deny sni-mismatch"), std::string::npos) << l[1];
}

TEST_F(IsolateEgressProxy, NamesResolvingToPrivateAddressesAreRefused) {
  EgressProxyOptions o;
  o.socket_path = dir.path + "/p2.sock";
  o.allow = {"allowed.test"};
  o.static_hosts = {{"allowed.test", "127.0.0.1"}};  // like DNS rebinding onto the host
  auto p = EgressProxy::start(o);
  ASSERT_TRUE(p) << p.error().message;
  proxy = std::move(*p);
  auto got = roundtrip("GET http://" + hp("allowed.test") +
                       "/ HTTP/1.1\r\nHost: " + hp("allowed.test") + "\r\n\r\n");
  EXPECT_NE(got.find("X-Awaywork-Refused: deny private-address"), std::string::npos) << got;
  EXPECT_TRUE(up.requests().empty());
}

}  // namespace
}  // namespace aw
