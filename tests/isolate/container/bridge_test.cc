// The unit's bridge container under isolation container. network allowlist: it relays
// 127.0.0.1:3128 of its network namespace to awaywork's egress proxy; a phase container that joins
// it reaches an allowed host through the proxy only. The "internet" is a test HTTP server on the
// host's loopback, named allowed.test / denied.test through the proxy's static_hosts.
// Several pairs: one listener each (the egress and the inference proxy). network none with the
// inference pair: the phase's only way out is 127.0.0.1:4180, relayed to a unix socket outside.
#include <gtest/gtest.h>
#include <unistd.h>

#include "base/fs.h"
#include "fixture.h"
#include "isolate/container/egress_bridge.h"
#include "isolate/container/seccomp_profile.h"
#include "isolate/static_program.h"
#include "proxy/egress_proxy.h"
#include "tiny_http.h"

namespace aw {
namespace {

using test::exit_code;
using test::run_phase_in;
using test::TinyHttp;

// A GET through the proxy (HTTP_PROXY, as a phase sees it) with bash's /dev/tcp: the image has
// no curl. Prints the status line.
std::string proxied_get(const std::string& host_port) {
  return "p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:} || exit 9; printf 'GET "
         "http://" +
         host_port + "/ HTTP/1.1\\r\\nHost: " + host_port +
         "\\r\\nConnection: close\\r\\n\\r\\n' >&3; head -n1 <&3 | tr -d '\\r'";
}

class ContainerAllowlist : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    engine = test::test_engine(&why);
    if (!engine) {
      if (test::under_ci()) FAIL() << "CI=true and no container engine: " << why;
      GTEST_SKIP() << "no container engine: " << why;
    }
    ASSERT_GT(http.port, 0);
    EgressProxyOptions o;
    o.socket_path = s.root + "/egress.sock";
    o.allow = {"allowed.test"};
    o.static_hosts = {{"allowed.test", "127.0.0.1"}, {"denied.test", "127.0.0.1"}};
    o.allow_private_upstream = true;
    auto p = EgressProxy::start(std::move(o));
    ASSERT_TRUE(p) << p.error().message;
    proxy = std::move(*p);
    auto program = static_program("aw_bridge_static");
    ASSERT_TRUE(program) << program.error().message;
    bridge.engine = *engine;
    bridge.image = test::kImage;
    bridge.name = test::unique_name("bridge");
    bridge.unit = "test-allowlist-" + std::to_string(::getpid());
    bridge.program = *program;
    bridge.pairs = {{3128, proxy->socket_path()}};
    bridge.uid = ::geteuid();  // the proxy's socket is 0600, awaywork's own
    bridge.gid = ::getegid();
    if (write_seccomp_profile(s.root + "/seccomp.json"))
      bridge.seccomp_profile = s.root + "/seccomp.json";
    auto up = start_bridge(bridge);
    ASSERT_TRUE(up) << up.error().message;
    started = true;
  }
  void TearDown() override {
    if (started) {
      EXPECT_TRUE(remove_container(*engine, bridge.name));
    }
  }

  ContainerPlan phase_plan() {
    auto p = test::plan_for(*engine, s);
    p.network = Network::allowlist;
    p.proxy_network = bridge.name;
    p.seccomp_profile = bridge.seccomp_profile;
    p.placeholders.emplace_back("HTTP_PROXY", bridge_proxy_url(3128));
    return p;
  }

  const Engine* engine = nullptr;
  test::Scratch s;
  TinyHttp http;
  std::unique_ptr<EgressProxy> proxy;
  BridgePlan bridge;
  bool started = false;
};

TEST_F(ContainerAllowlist, AnAllowedHostIsReachedThroughTheProxy) {
  std::string target = fmt::format("allowed.test:{}", http.port);
  auto r = run_phase_in(phase_plan(), {"/bin/bash", "-c", proxied_get(target)});
  EXPECT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "HTTP/1.1 200 OK\n") << r.err;
  EXPECT_EQ(http.served, 1);
}

TEST_F(ContainerAllowlist, AHostNotAllowedIsRefusedWith403) {
  std::string target = fmt::format("denied.test:{}", http.port);
  auto r = run_phase_in(phase_plan(), {"/bin/bash", "-c", proxied_get(target)});
  EXPECT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out.rfind("HTTP/1.1 403", 0), 0u) << r.out << r.err;
  EXPECT_EQ(http.served, 0);
}

// Without the proxy: the host's loopback is not this namespace's, and there is no route out.
TEST_F(ContainerAllowlist, ADirectConnectionFailsAndTheProxySocketIsNotInThePhase) {
  std::string script = fmt::format(
      "(exec 3<>/dev/tcp/127.0.0.1/{0}) 2>/dev/null && echo reached-loopback; "
      "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo reached-internet; "
      "test -e {1} && echo socket-visible; test -e /aw-bridge-0.sock && echo socket-visible; "
      "echo done",
      http.port, proxy->socket_path());
  auto r = run_phase_in(phase_plan(), {"/bin/bash", "-c", script});
  EXPECT_EQ(r.out, "done\n") << r.err;
  EXPECT_EQ(http.served, 0);
}

TEST_F(ContainerAllowlist, TheBridgeCarriesTheUnitsLabelAndGoesWithRemoveContainer) {
  auto mine = containers_of_unit(*engine, bridge.unit);
  ASSERT_TRUE(mine) << mine.error().message;
  EXPECT_EQ(*mine, std::vector<std::string>{bridge.name});
  auto args = bridge_run_args(bridge);
  ASSERT_TRUE(args);
  std::string all;
  for (const auto& a : *args) all += a + " ";
  for (const char* want :
       {"--network none ", "--read-only ", "--cap-drop ALL ", "no-new-privileges ",
        ",readonly --mount=type=bind,source=", " 3128 /aw-bridge-0.sock"})
    EXPECT_NE(all.find(want), std::string::npos) << want << " in " << all;
  ASSERT_TRUE(remove_container(*engine, bridge.name));
  started = false;
  mine = containers_of_unit(*engine, bridge.unit);
  ASSERT_TRUE(mine);
  EXPECT_TRUE(mine->empty());
}

// Two proxies outside (unix-socket HTTP servers, 0600 like awaywork's), one bridge relaying both;
// the phases run in network none and join the bridge's namespace.
class ContainerBridgePairs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    engine = test::test_engine(&why);
    if (!engine) {
      if (test::under_ci()) FAIL() << "CI=true and no container engine: " << why;
      GTEST_SKIP() << "no container engine: " << why;
    }
    ASSERT_TRUE(inference.listening() && other.listening() && host.port > 0);
    auto program = static_program("aw_bridge_static");
    ASSERT_TRUE(program) << program.error().message;
    bridge.engine = *engine;
    bridge.image = test::kImage;
    bridge.name = test::unique_name("bridge");
    bridge.unit = "test-pairs-" + std::to_string(::getpid());
    bridge.program = *program;
    bridge.uid = ::geteuid();  // the sockets are 0600, awaywork's own
    bridge.gid = ::getegid();
    if (write_seccomp_profile(s.root + "/seccomp.json"))
      bridge.seccomp_profile = s.root + "/seccomp.json";
  }
  void TearDown() override {
    if (started) {
      EXPECT_TRUE(remove_container(*engine, bridge.name));
    }
  }

  void start(std::vector<BridgePair> pairs) {
    bridge.pairs = std::move(pairs);
    auto up = start_bridge(bridge);
    ASSERT_TRUE(up) << up.error().message;
    started = true;
  }

  ContainerPlan phase_plan() {
    auto p = test::plan_for(*engine, s);
    p.network = Network::none;
    p.proxy_network = bridge.name;
    p.seccomp_profile = bridge.seccomp_profile;
    return p;
  }

  const Engine* engine = nullptr;
  test::Scratch s;
  TinyHttp inference{s.root + "/inference.sock", "from-the-inference-proxy\n"};
  TinyHttp other{s.root + "/other.sock", "from-the-other-proxy\n"};
  TinyHttp host;  // on the host's loopback: never reachable from a phase
  BridgePlan bridge;
  bool started = false;
};

// GET http://127.0.0.1:PORT/ with bash's /dev/tcp; prints the body's last line, or
// "refused PORT" when nothing listens.
std::string get_script(const std::string& host, int port) {
  return fmt::format(
      "if exec 3<>/dev/tcp/{0}/{1}; then printf 'GET / HTTP/1.1\\r\\nHost: {0}\\r\\nConnection: "
      "close\\r\\n\\r\\n' >&3; tail -n1 <&3; exec 3<&-; else echo refused {1}; fi 2>/dev/null; ",
      host, port);
}

TEST_F(ContainerBridgePairs, TheBridgeRelaysEachPortToItsOwnSocket) {
  start({{4180, inference.socket_path}, {4181, other.socket_path}});
  auto r =
      run_phase_in(phase_plan(), {"/bin/bash", "-c",
                                  get_script("127.0.0.1", 4180) + get_script("127.0.0.1", 4181) +
                                      get_script("127.0.0.1", 4180)});
  EXPECT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "from-the-inference-proxy\nfrom-the-other-proxy\nfrom-the-inference-proxy\n")
      << r.err;
  EXPECT_EQ(inference.served, 2);
  EXPECT_EQ(other.served, 1);
}

// network none with the inference pair only: 127.0.0.1:4180 is the one way out. Another port of
// the namespace, the host's loopback, the host through the engine's gateway and the internet are
// all unreachable, the namespace has no interface but lo, and no socket is in the phase.
TEST_F(ContainerBridgePairs, NetworkNoneWithTheInferencePairReachesOnlyThatSocket) {
  start({{4180, inference.socket_path}});
  std::string script = get_script("127.0.0.1", 4180) + get_script("127.0.0.1", 4181) +
                       get_script("127.0.0.1", 3128) + get_script("127.0.0.1", host.port) +
                       get_script("172.17.0.1", host.port) + get_script("172.17.0.1", 22) +
                       "(exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo reached-internet; "
                       "echo interfaces $(ls /sys/class/net); "
                       "for f in /aw-bridge-0.sock " +
                       inference.socket_path +
                       "; do test -e $f && echo socket-visible $f; done; echo done";
  auto r = run_phase_in(phase_plan(), {"/bin/bash", "-c", script});
  EXPECT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("from-the-inference-proxy\nrefused 4181\nrefused 3128\n"
                               "refused {0}\nrefused {0}\nrefused 22\ninterfaces lo\ndone\n",
                               host.port))
      << r.err;
  EXPECT_EQ(inference.served, 1);
  EXPECT_EQ(other.served, 0);
  EXPECT_EQ(host.served, 0);
}

TEST(BridgePlan, RefusesNoPairTheSamePortTwiceAndPathsThatWouldAddFields) {
  BridgePlan p;
  p.image = test::kImage;
  p.name = "aw-u1-bridge";
  p.program = "/opt/aw/aw_bridge_static";
  EXPECT_FALSE(bridge_run_args(p)) << "no pair";
  p.pairs = {{4180, "/run/a.sock"}, {4180, "/run/b.sock"}};
  EXPECT_FALSE(bridge_run_args(p)) << "the same port twice";
  p.pairs = {{4180, "/run/a.sock,target=/etc"}};
  EXPECT_FALSE(bridge_run_args(p));
  p.pairs = {{4180, "relative.sock"}};
  EXPECT_FALSE(bridge_run_args(p));
  p.pairs = {{0, "/run/a.sock"}};
  EXPECT_FALSE(bridge_run_args(p));
  p.pairs.assign(kMaxBridgePairs + 1, BridgePair{});
  for (size_t i = 0; i < p.pairs.size(); ++i)
    p.pairs[i] = {static_cast<uint16_t>(5000 + i), "/run/s" + std::to_string(i)};
  EXPECT_FALSE(bridge_run_args(p)) << "more than the program takes";
  p.pairs = {{3128, "/run/egress.sock"}, {4180, "/run/inference.sock"}};
  auto a = bridge_run_args(p);
  ASSERT_TRUE(a) << a.error().message;
  std::string all;
  for (const auto& x : *a) all += x + " ";
  for (const char* want :
       {"--mount=type=bind,source=/run/egress.sock,target=/aw-bridge-0.sock ",
        "--mount=type=bind,source=/run/inference.sock,target=/aw-bridge-1.sock ",
        "--entrypoint=/aw-bridge awaywork-test:bookworm 3128 /aw-bridge-0.sock 4180 "
        "/aw-bridge-1.sock "})
    EXPECT_NE(all.find(want), std::string::npos) << want << " in " << all;
}

}  // namespace
}  // namespace aw
