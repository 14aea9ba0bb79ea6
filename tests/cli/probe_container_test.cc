// `awaywork probe` under isolation container: the leak suite (the static probe, lent read-only)
// run as a unit's agent phase would run, in a fresh container of the test image, which grants
// sudo NOPASSWD to everyone. Every probe is ok; the positive control weakens the container
// through the test-only knob (the owner's home mounted, a capability added, the Docker socket
// mounted) and the matching probes report the leak, so the suite can see each of them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "../isolate/container/fixture.h"
#include "../unit/unit_fixture.h"
#include "config/config.h"
#include "isolate/probe/probe_container.h"

namespace aw::test {
namespace {

class ContainerProbe : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    std::string why;
    if (!test_engine(&why)) {
      if (under_ci()) FAIL() << "CI=true and no container engine: " << why;
      GTEST_SKIP() << "no container engine: " << why;
    }
    // Small limits: the fork bomb and the memory hog try twice as much.
    std::ofstream(config) << "state_dir: " << root << "/state\n"
                          << "isolation: container\ncontainer_engine: docker\n"
                          << "container_image: " << kImage << "\n"
                          << "sandbox: {limits: {memory: 128M, pids: 64}}\n";
  }

  // name -> ok, from the probe's JSON array.
  static std::map<std::string, bool> by_name(const nlohmann::json& probes) {
    std::map<std::string, bool> m;
    for (const auto& p : probes) m[p["name"].get<std::string>()] = p["ok"].get<bool>();
    return m;
  }
};

TEST_F(ContainerProbe, EveryProbeIsOkInsideAFreshContainer) {
  auto r = awaywork({"probe", "--json"});
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["isolation"], "container");
  EXPECT_EQ(r.record["sandbox"],
            std::string("sandboxed: container docker ") + kImage + ", network none");
  for (const auto& p : r.record["probes"]) EXPECT_TRUE(p["ok"].get<bool>()) << p.dump();
  auto names = by_name(r.record["probes"]);
  // What the issue lists for a container, each really probed.
  for (const char* n : {"host.home_canary", "write.home", "socket.docker", "proc.owner_processes",
                        "sudo", "caps.none", "ptrace", "io_uring", "socket.vsock", "tiocsti",
                        "userns.nested", "net.host_loopback", "limits.pids", "limits.memory"})
    EXPECT_TRUE(names.count(n)) << n << " missing from " << r.out;
  EXPECT_TRUE(names.count("hidden:" + config)) << r.out;
  // The canary folder in the owner's home is gone again.
  for (const auto& e : std::filesystem::directory_iterator(root))
    EXPECT_EQ(e.path().filename().string().rfind(".awaywork-probe-", 0), std::string::npos);
}

// network allowlist: the probe runs in a phase container joined to the unit's egress bridge; a
// name the config does not allow is refused by the proxy, nothing else leaks.
TEST_F(ContainerProbe, AllowlistProbeRunsBehindTheBridgeAndTheProxyRefusesWhatIsNotListed) {
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "isolation: container\ncontainer_engine: docker\n"
                        << "container_image: " << kImage << "\n"
                        << "sandbox: {limits: {memory: 128M, pids: 64}, network: allowlist, "
                           "allow: [example.org]}\n";
  auto r = awaywork({"probe", "--json"});
  ASSERT_TRUE(r.record.is_object()) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.record["sandbox"], std::string("sandboxed: container docker ") + kImage +
                                     ", network allowlist (1 allowed host(s) through the egress "
                                     "proxy)");
  auto names = by_name(r.record["probes"]);
  ASSERT_TRUE(names.count("net.denied_host")) << r.out;
  for (const auto& p : r.record["probes"])
    if (p["name"] == "net.denied_host") {  // refused by the proxy: the bridge reached it
      EXPECT_NE(p["detail"].get<std::string>().find(" 403 "), std::string::npos) << p.dump();
    }
  for (const auto& [n, ok] : names) EXPECT_TRUE(ok) << n << ": " << r.out;
}

TEST_F(ContainerProbe, TextOutputNamesTheIsolationAndHasNoLeak) {
  auto r = awaywork({"probe"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("isolation container, sandboxed: container docker ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nok   caps.none\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("LEAK"), std::string::npos) << r.out;
}

// The same run through the library, weakened on purpose: the probes that must see each weakening
// report it, and the others stay ok.
TEST_F(ContainerProbe, WeakenedContainerMakesTheMatchingProbesLeak) {
  ASSERT_EQ(::setenv("HOME", root.c_str(), 1), 0);  // the owner's home, as the CLI run sees it
  auto cfg = load_config(config, true);
  ASSERT_TRUE(cfg) << cfg.error().message;
  ContainerProbeOptions o;
  o.weaken_for_test = {"--mount=type=bind,source=" + root + ",target=" + root,
                       "--mount=type=bind,source=/var/run/docker.sock,target=/var/run/docker.sock",
                       "--cap-add=SYS_ADMIN"};
  auto r = run_container_probe(*cfg, o);
  ASSERT_TRUE(r) << r.error().message;
  auto probes = nlohmann::json::parse(r->out, nullptr, false);
  ASSERT_TRUE(probes.is_array()) << r->out << r->err;
  auto names = by_name(probes);
  for (const auto& n : {std::string("host.home_canary"), std::string("write.home"),
                        "hidden:" + config, std::string("socket.docker"), std::string("caps.none")})
    EXPECT_FALSE(names.at(n)) << n << " should leak: " << r->out;
  for (const char* n : {"proc.owner_processes", "net.host_loopback", "ptrace", "sudo"})
    EXPECT_TRUE(names.at(n)) << n << " should stay ok: " << r->out;
  // Without the knob, the same library run is clean.
  r = run_container_probe(*cfg, {});
  ASSERT_TRUE(r) << r.error().message;
  for (const auto& [n, ok] : by_name(nlohmann::json::parse(r->out))) EXPECT_TRUE(ok) << n;
}

}  // namespace
}  // namespace aw::test
