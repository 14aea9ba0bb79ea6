// A unit under the default sandbox (isolation none): what the agent sees of the owner's machine,
// and network: allowlist through the egress proxy.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "../unit/unit_fixture.h"

namespace aw::test {
namespace {

class SandboxedUnit : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    if (::geteuid() != 0) {
      const char* ci = std::getenv("CI");
      if (ci && std::string(ci) == "true") FAIL() << "needs root (cgroup limits)";
      GTEST_SKIP() << "needs root (cgroup limits)";
    }
  }
};

// The agent program lives in the test's /tmp folder, which is private inside: it is lent alone,
// read-only; its neighbours, the config file and the state folder stay out of sight.
TEST_F(SandboxedUnit, AgentInTmpRunsButSeesNothingElseOfTheOwnersTmp) {
  make_repo({{"a.txt", "x\n"}});
  std::ofstream(root + "/agents/neighbour") << "owner's file\n";
  std::string out = "\"$AWAYWORK_OUTPUTS\"";
  write_config(agent_script("look", "ls " + root + "/agents > " + out + "/agents 2>&1 || true\n" +
                                        "cat " + config + " > " + out + "/config 2>&1 || true\n" +
                                        "ls " + root + "/state > " + out + "/state 2>&1 || true\n" +
                                        "echo hi 2>" + out + "/self >> $0 || true\n" +
                                        "echo t > \"$TMPDIR/t\" && cp \"$TMPDIR/t\" " + out +
                                        "/tmp\n" + "echo y > a.txt"));
  auto r = run_unit("look around");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network none", 0), 0u);
  std::string dir = r.record["run_dir"];
  EXPECT_EQ(read(dir + "/outputs/tmp"), "t\n");  // TMPDIR (in the hidden state folder) is writable
  EXPECT_EQ(read(dir + "/outputs/agents"), "look\n");
  EXPECT_EQ(read(dir + "/outputs/config").find("agents:"), std::string::npos)
      << read(dir + "/outputs/config");
  EXPECT_EQ(read(dir + "/outputs/state"), "runs\n");  // only the way to the unit's own folders
  EXPECT_NE(read(dir + "/outputs/self").find("Read-only"), std::string::npos)
      << read(dir + "/outputs/self");
}

TEST_F(SandboxedUnit, AllowlistGoesThroughTheEgressProxyWhichRefusesOtherHostsAndLogs) {
  make_repo({{"a.txt", "x\n"}});
  write_config(
      agent_script("net", R"(env | grep -i '^https*_proxy=' | sort > "$AWAYWORK_OUTPUTS/env"
curl -s -o /dev/null -w '%{http_code}' http://denied.invalid/ > "$AWAYWORK_OUTPUTS/code" || true
echo y > a.txt)"),
      "sandbox: {network: allowlist, allow: [example.com]}\n");
  auto r = run_unit("use the network");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: network allowlist", 0), 0u);
  std::string dir = r.record["run_dir"];
  EXPECT_EQ(read(dir + "/outputs/env"),
            "HTTPS_PROXY=http://127.0.0.1:3128\nHTTP_PROXY=http://127.0.0.1:3128\n"
            "http_proxy=http://127.0.0.1:3128\nhttps_proxy=http://127.0.0.1:3128\n");
  EXPECT_EQ(read(dir + "/outputs/code"), "403");
  EXPECT_NE(read(dir + "/egress.log").find("\"host\":\"denied.invalid\""), std::string::npos);
}

}  // namespace
}  // namespace aw::test
