// network: allowlist under isolation container: a unit's bridge container relays 127.0.0.1:3128
// of its network namespace to awaywork's egress proxy; a phase container that joins it reaches an
// allowed host through the proxy only. The "internet" is a test HTTP server on the host's
// loopback, named allowed.test / denied.test through the proxy's static_hosts.
#include <gtest/gtest.h>
#include <unistd.h>

#include "base/fs.h"
#include "fixture.h"
#include "isolate/container/egress_bridge.h"
#include "isolate/container/seccomp_profile.h"
#include "isolate/container/static_program.h"
#include "isolate/proxy/egress_proxy.h"
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
    bridge.socket = proxy->socket_path();
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
    p.placeholders.emplace_back("HTTP_PROXY", bridge_proxy_url(bridge.port));
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
      "test -e {1} && echo socket-visible; test -e /aw-egress.sock && echo socket-visible; "
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
  for (const char* want : {"--network none ", "--read-only ", "--cap-drop ALL ",
                           "no-new-privileges ", ",readonly --mount=type=bind,source="})
    EXPECT_NE(all.find(want), std::string::npos) << want << " in " << all;
  ASSERT_TRUE(remove_container(*engine, bridge.name));
  started = false;
  mine = containers_of_unit(*engine, bridge.unit);
  ASSERT_TRUE(mine);
  EXPECT_TRUE(mine->empty());
}

}  // namespace
}  // namespace aw
