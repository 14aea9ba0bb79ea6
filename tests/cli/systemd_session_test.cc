// Limits and containment for an owner who is not root, in a real systemd user session: systemd
// boots as PID 1 in a container of the local image awaywork-systemd:bookworm
// (scripts/test-image-systemd), an ordinary user gets a user manager by `loginctl enable-linger`,
// and this build's awaywork (bind-mounted) runs a unit and `awaywork probe` as that user. The unit
// runs in a systemd user scope awaywork asks for over D-Bus (Delegate=yes), or in the delegated
// scope it was started in; everything it started
// is killed through it; the record says where containment and limits came from. This kernel binds
// memory, pids and cpu to cgroup v1, which systemd does not delegate: `sandbox: required` refuses
// with that reason, `limits: off` runs contained.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "proc/capture.h"

extern char** environ;

namespace aw::test {
namespace {

constexpr const char* kImage = "awaywork-systemd:bookworm";

bool in_ci() {
  const char* v = std::getenv("CI");
  return v && std::string(v) == "true";
}

Captured sh(const std::string& script, const std::string& stdin_data = "") {
  CaptureSpec spec{{"/bin/sh", "-c", script}, {}, "", stdin_data};
  for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  auto r = capture(spec);
  return r ? *r : Captured{-1, "", r.error().message};
}

class SystemdSession : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (::geteuid() != 0)
      why = "needs root (docker)";
    else if (sh("docker info >/dev/null 2>&1").exit_code != 0)
      why = "the container engine does not answer (scripts/engine-up)";
    else if (sh(std::string("docker image inspect ") + kImage + " >/dev/null 2>&1").exit_code != 0)
      why = std::string("no image ") + kImage + " (scripts/test-image-systemd)";
    if (!why.empty()) {
      if (in_ci()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    name_ = "aw-systemd-" + std::to_string(::getpid());
    auto run = sh("docker run -d --name " + name_ +
                  " --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt "
                  "systempaths=unconfined --cgroupns=private --tmpfs /run --tmpfs /run/lock -v " +
                  std::string(AW_BINARY_DIR) + "/src/cli:/opt/awaywork:ro " + kImage +
                  " /lib/systemd/systemd");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    started_ = true;
    // degraded is fine (units a container cannot run); what matters is that it finished booting.
    // The system bus comes up a moment after PID 1 starts; then wait for the boot to finish.
    auto up = root(
        "for i in $(seq 300); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.1; done; "
        "timeout 90 systemctl is-system-running --wait; true");
    ASSERT_NE(up.out.find("running"), std::string::npos) << up.out << up.err;
    auto libs = root("ldd /opt/awaywork/awaywork | grep 'not found'");
    ASSERT_NE(libs.exit_code, 0) << "the image lacks libraries this build links (add their "
                                    "packages to scripts/test-image-systemd): "
                                 << libs.out;
    ASSERT_EQ(root("useradd -m -s /bin/bash alice && loginctl enable-linger alice").exit_code, 0);
    uid_ = root("id -u alice").out;
    uid_.erase(uid_.find_last_not_of("\n") + 1);
    auto bus = root("for i in $(seq 150); do [ -S /run/user/" + uid_ +
                    "/bus ] && exit 0; sleep 0.2; done; exit 1");
    ASSERT_EQ(bus.exit_code, 0) << "alice's user manager did not come up: "
                                << root("systemctl status user@" + uid_ + ".service").out;
    auto repo = alice(
        "git init -q -b main src && cd src && echo a > a.txt && git add a.txt && "
        "git -c user.name=t -c user.email=t@t commit -qm init && mkdir -p /home/alice/agents && "
        "printf '#!/bin/sh\\nsetsid sleep 4343.5 &\\n"
        "echo b > a.txt\\n' > /home/alice/agents/agent && chmod 755 /home/alice/agents/agent");
    ASSERT_EQ(repo.exit_code, 0) << repo.err;
  }
  void TearDown() override {
    if (started_) sh("docker rm -f " + name_ + " >/dev/null 2>&1");
  }
  // Scripts travel on stdin: no quoting through two shells.
  Captured root(const std::string& script) {
    return sh("docker exec -i " + name_ + " sh -s", script);
  }
  // As alice in her user session: the bus and runtime folder of her user manager.
  Captured alice(const std::string& script) {
    return sh(
        "docker exec -i -u alice -w /home/alice -e HOME=/home/alice -e USER=alice -e "
        "PATH=/usr/bin:/bin -e XDG_RUNTIME_DIR=/run/user/" +
            uid_ + " -e DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/" + uid_ + "/bus " + name_ +
            " sh -s",
        script);
  }
  Captured awaywork(const std::string& sandbox, const std::string& args) {
    std::string cfg =
        "state_dir: /home/alice/state\nagent: a\nagents:\n  a:\n    command: "
        "[/home/alice/agents/agent]\nrepos:\n  src:\n    path: /home/alice/src\n" +
        sandbox;
    auto w = sh("docker exec -i -u alice " + name_ + " sh -c 'cat > /home/alice/config.yml'", cfg);
    EXPECT_EQ(w.exit_code, 0) << w.err;
    return alice("/opt/awaywork/awaywork --config config.yml " + args);
  }
  std::string name_, uid_;
  bool started_ = false;
};

TEST_F(SystemdSession, RequiredRefusesWithTheV1ReasonAndItsFix) {
  auto r = awaywork("", "run --repo src --prompt edit --json");
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("binds the memory, pids and cpu controllers to cgroup v1"), std::string::npos)
      << all;
  EXPECT_NE(all.find("systemd delegates only cgroup v2 to a user"), std::string::npos) << all;
  EXPECT_NE(all.find("limits: off"), std::string::npos) << all;
}

TEST_F(SystemdSession, LimitsOffRunsTheUnitInItsOwnDelegatedScopeAndKillsWhatItLeft) {
  auto r = awaywork("sandbox: {limits: off}\n", "run --repo src --prompt edit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto rec = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object()) << r.out;
  EXPECT_EQ(rec["state"], "done") << r.out;
  EXPECT_EQ(rec["sandbox"].get<std::string>().rfind("sandboxed", 0), 0u) << r.out;
  ASSERT_FALSE(rec["phases"].empty()) << r.out;
  std::string containment = rec["phases"][0]["containment"];
  EXPECT_NE(containment.find("cgroup v2 in the systemd user scope /user.slice/user-" + uid_ +
                             ".slice/user@" + uid_ + ".service/"),
            std::string::npos)
      << containment;
  EXPECT_NE(containment.find("/awaywork-"), std::string::npos) << containment;
  EXPECT_NE(root("pgrep -f \"sleep 4343.5\"").exit_code, 0) << "the leftover sleep survived";
  std::string notes = rec["notes"].dump();
  EXPECT_NE(notes.find("phases contained by cgroup v2 in the systemd user scope"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("limits off in the config"), std::string::npos) << notes;
}

// Started inside a group already delegated to the owner (`systemd-run --user --scope -p
// Delegate=yes`), awaywork uses that group as it is and does not ask systemd for another scope:
// asked, systemd would have moved it out into an awaywork-PID.scope.
TEST_F(SystemdSession, InsideAnAlreadyDelegatedScopeItUsesThatScopeAndAsksSystemdForNone) {
  awaywork("sandbox: {limits: off}\n", "--version");  // writes config.yml
  auto r = alice(
      "systemd-run --user --scope -q -p Delegate=yes --unit=given-by-owner "
      "/opt/awaywork/awaywork --config config.yml run --repo src --prompt edit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto rec = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object() && !rec["phases"].empty()) << r.out;
  EXPECT_EQ(rec["state"], "done") << r.out;
  std::string containment = rec["phases"][0]["containment"];
  EXPECT_NE(containment.find("cgroup v2 in the owner's delegated cgroup /user.slice/user-" + uid_ +
                             ".slice/user@" + uid_ + ".service/"),
            std::string::npos)
      << containment;
  EXPECT_NE(containment.find("/given-by-owner.scope"), std::string::npos) << containment;
  EXPECT_EQ(containment.find("awaywork-"), std::string::npos) << containment;
  EXPECT_NE(root("pgrep -f \"sleep 4343.5\"").exit_code, 0) << "the leftover sleep survived";
}

// Without the sandbox (whose init would kill the leftover first) the scope's group is what finds
// the setsid'd sleep and kills it.
TEST_F(SystemdSession, UnsandboxedTheScopesGroupKillsWhatThePhaseLeft) {
  auto r = awaywork("sandbox: {mode: off}\n", "run --repo src --prompt edit --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto rec = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object() && !rec["phases"].empty()) << r.out;
  std::string containment = rec["phases"][0]["containment"];
  EXPECT_NE(containment.find("cgroup v2 in the systemd user scope"), std::string::npos)
      << containment;
  EXPECT_GE(rec["phases"][0]["leftovers_killed"].get<int>(), 1) << r.out;
  EXPECT_NE(root("pgrep -f \"sleep 4343.5\"").exit_code, 0) << "the leftover sleep survived";
}

TEST_F(SystemdSession, ProbeRunsContainedAsTheUser) {
  auto r = awaywork("sandbox: {limits: off}\n", "probe --json");
  auto rec = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(rec.is_object()) << r.out << r.err;
  EXPECT_EQ(rec["sandbox"].get<std::string>().rfind("sandboxed", 0), 0u) << r.out;
  for (const auto& p : rec["probes"]) {
    std::string n = p["name"];
    if (n.rfind("limits.", 0) == 0) continue;  // limits are off here, by the test's choice
    EXPECT_TRUE(p["ok"].get<bool>()) << p.dump();
  }
}

}  // namespace
}  // namespace aw::test
