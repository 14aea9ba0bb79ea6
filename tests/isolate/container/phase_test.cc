// A phase in a fresh container, started by the container launcher as the runner's keeper would:
// what it sees, what it can do, and that nothing of it outlives remove_container.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "base/fs.h"
#include "fixture.h"
#include "isolate/container/setid.h"

namespace aw {
namespace {

using test::exit_code;
using test::host_cmdlines;
using test::run_phase_in;

std::vector<std::string> sh(const std::string& script) {
  return {"/bin/sh", "-c", script};
}

bool any_host_process_has(const std::string& needle) {
  auto all = host_cmdlines();
  return std::any_of(all.begin(), all.end(),
                     [&](const std::string& c) { return c.find(needle) != std::string::npos; });
}

TEST(ContainerPhase, SeesTheCloneAtItsOwnPathAsTheOwnerWithHomeInsideIt) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh("cat README; id -u; id -g; pwd; echo $HOME; echo $AWAYWORK_UNIT;"
                                 "touch made-inside && echo wrote"));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("the clone\n{}\n{}\n{}\n{}/.away/home\ntest-unit\nwrote\n", s.uid,
                               s.gid, s.clone, s.clone));
  struct stat st {};
  ASSERT_EQ(::lstat((s.clone + "/made-inside").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, s.uid);
}

TEST(ContainerPhase, MountsNothingOfTheHostButTheCloneAndThePluginFolder) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  // A marker in the host's HOME (the image has a /root of its own: the path alone proves nothing).
  const char* home = ::getenv("HOME");
  std::string marker =
      fmt::format("{}/.awaywork-container-test-{}", home ? home : "/root", ::getpid());
  ASSERT_TRUE(write_file(marker, "host home\n"));
  auto r = run_phase_in(
      plan, sh(fmt::format("for p in {} /work {} /var/run/docker.sock /run/docker.sock "
                           "/run/containerd/containerd.sock /run/podman/podman.sock; do "
                           "test -e $p && echo LEAK $p; done; "
                           "grep -c ' {} \\| {} ' /proc/self/mountinfo; "
                           "grep -E '^[^ ]+ [^ ]+ [^ ]+ /[^ ]+ ' /proc/self/mountinfo | "
                           "awk '{{print $5}}' | grep -v -E '^/(proc|dev|sys|etc/(resolv.conf|"
                           "hostname|hosts)|run/.containerenv$)' | sort",
                           marker, s.root + "/README", s.clone, s.plugin)));
  ::unlink(marker.c_str());
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out.find("LEAK"), std::string::npos) << r.out;
  // Bind mounts of a host path (a root other than /): exactly the clone and the plugin folder,
  // besides the engine's own per-container files (resolv.conf, hostname, hosts, and podman's
  // /run/.containerenv, which names the container and image, nothing of the owner).
  EXPECT_EQ(r.out, fmt::format("2\n{}\n{}\n", s.plugin, s.clone)) << r.out;
}

TEST(ContainerPhase, ThePluginFolderIsReadOnlyAndTheCloneWritable) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh(fmt::format("cat {0}/plugin.txt; touch {0}/x 2>/dev/null && "
                                             "echo PLUGIN-WRITABLE; touch {1}/y && echo ok",
                                             s.plugin, s.clone)));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "plugin\nok\n");
}

TEST(ContainerPhase, HasNoCapabilitiesAndSudoIsRefusedEvenWithNopasswdForAll) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh("grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status; "
                                 "grep NoNewPrivs /proc/self/status; "
                                 "test -e /etc/sudoers.d/everyone && echo nopasswd-for-all; "
                                 "sudo -n true 2>&1 && echo SUDO-WORKED; "
                                 "sudo -n id -u 2>/dev/null; echo done"));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out,
            "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
            "CapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nNoNewPrivs:\t1\n"
            "nopasswd-for-all\nsudo: The \"no new privileges\" flag is set, which prevents "
            "sudo from running as root.\nsudo: If sudo is running in a container, you may need "
            "to adjust the container configuration to disable the flag.\ndone\n");
}

TEST(ContainerPhase, SeesNoProcessOfTheHostAndNoNetworkButLoopback) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r =
      run_phase_in(plan, sh("ls /sys/class/net; for f in /proc/[0-9]*/environ; do "
                            "cat $f 2>/dev/null | tr '\\0' '\\n' | grep -q '^DOCKE[R]\\|docker[d]' "
                            "&& echo HOST-ENV $f; done; grep -l 'docker[d]' /proc/[0-9]*/cmdline "
                            "2>/dev/null; echo pid1=$(cat /proc/1/comm)"));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "lo\npid1=sh\n");
}

TEST(ContainerPhase, MemoryPidsAndNetworkLimitsReachTheEngine) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  std::string name = test::unique_name("limits");
  int out = -1, err = -1;
  pid_t pid = test::start_phase(plan, name, {"sleep", "300"}, {}, &out, &err);
  ASSERT_GT(pid, 0);
  std::string got;
  for (int i = 0; i < 300 && got.find("true") == std::string::npos; ++i) {
    auto o = engine_command(e,
                            {"container", "inspect", "--format",
                             "{{.HostConfig.Memory}} {{.HostConfig.PidsLimit}} "
                             "{{.HostConfig.NetworkMode}} {{.HostConfig.ReadonlyRootfs}} "
                             "{{.State.Running}}",
                             name},
                            std::chrono::seconds(10));
    if (o && o->exit_code == 0) got = o->out;
    if (got.find("true") == std::string::npos) ::usleep(100000);
  }
  EXPECT_EQ(got, fmt::format("{} 64 none false true\n", 512ull << 20));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(out);
  ::close(err);
  EXPECT_TRUE(remove_container(e, name));
}

// The fake token is shaped like a GitHub token; it is not one.
constexpr const char* kFakeToken = "ghp_AwayworkFakeTokenForContainerTest0123";

TEST(ContainerPhase, ASecretPassedByNameIsInsideButOnNoArgvOfTheHostOrTheEngine) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  plan.secret_names = {"AW_TEST_TOKEN"};
  std::string name = test::unique_name("secret");
  int out = -1, err = -1;
  pid_t pid = test::start_phase(
      plan, name, sh("printenv AW_TEST_TOKEN; exec sleep 300"),
      {std::string("AW_TEST_TOKEN=") + kFakeToken, "OTHER_OWNER_VAR=not-passed"}, &out, &err);
  ASSERT_GT(pid, 0);
  std::string seen;
  char buf[256];
  while (seen.find('\n') == std::string::npos) {
    ssize_t k = ::read(out, buf, sizeof buf);
    if (k <= 0) break;
    seen.append(buf, static_cast<size_t>(k));
  }
  EXPECT_EQ(seen, std::string(kFakeToken) + "\n");
  // Running now: nothing on any host argv (client, shim, runc, the container's own processes).
  EXPECT_FALSE(any_host_process_has(kFakeToken));
  auto args = engine_command(e,
                             {"container", "inspect", "--format",
                              "{{.Path}} {{json .Args}} {{json .Config.Cmd}} "
                              "{{json .Config.Entrypoint}} {{json .Config.Env}}",
                              name},
                             std::chrono::seconds(10));
  ASSERT_TRUE(args && args->exit_code == 0);
  std::string argv_part = args->out.substr(0, args->out.rfind(" ["));
  std::string env_part = args->out.substr(args->out.rfind(" ["));
  EXPECT_EQ(argv_part.find(kFakeToken), std::string::npos) << argv_part;
  EXPECT_EQ(env_part.find("OTHER_OWNER_VAR"), std::string::npos) << env_part;
  // Known and accepted (see the report): the engine keeps the value in Config.Env of the
  // container's record, readable by whoever can talk to the engine (root-equivalent) and removed
  // with the container.
  EXPECT_NE(env_part.find(kFakeToken), std::string::npos);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(out);
  ::close(err);
  EXPECT_TRUE(remove_container(e, name));
}

TEST(ContainerPhase, AHangingContainerOutlivesItsKilledClientUntilRemoveContainer) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  std::string name = test::unique_name("hang");
  int out = -1, err = -1;
  pid_t pid = test::start_phase(plan, name, sh("echo up; exec sleep 4711"), {}, &out, &err);
  ASSERT_GT(pid, 0);
  char buf[8];
  ASSERT_EQ(::read(out, buf, 3), 3);
  // The keeper's timeout: SIGKILL to the client (the phase's main process).
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  auto running = engine_command(e, {"container", "inspect", "--format", "{{.State.Running}}", name},
                                std::chrono::seconds(10));
  ASSERT_TRUE(running);
  EXPECT_EQ(running->out, "true\n") << "killing the client alone stops nothing";
  EXPECT_TRUE(any_host_process_has("sleep 4711"));
  auto gone = remove_container(e, name);
  ASSERT_TRUE(gone) << gone.error().message;
  auto after = engine_command(e, {"container", "inspect", name}, std::chrono::seconds(10));
  ASSERT_TRUE(after);
  EXPECT_NE(after->exit_code, 0);
  EXPECT_FALSE(any_host_process_has("sleep 4711"));
  ::close(out);
  ::close(err);
}

TEST(ContainerPhase, ADetachedProcessInsideDiesWithItsContainer) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh("setsid sleep 4712 </dev/null >/dev/null 2>&1 & "
                                 "nohup sleep 4713 </dev/null >/dev/null 2>&1 & echo left"));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "left\n");
  EXPECT_FALSE(any_host_process_has("sleep 4712"));
  EXPECT_FALSE(any_host_process_has("sleep 4713"));
}

TEST(ContainerPhase, SetuidBitsMadeInsideAreDroppedOnTheWayOut) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh("cp /bin/true tool && chmod 6755 tool && mkdir d && "
                                 "chmod 2755 d && stat -c %a tool d"));
  ASSERT_EQ(exit_code(r), 0) << r.err;
  EXPECT_EQ(r.out, "6755\n2755\n");
  auto n = drop_setid_bits(s.clone);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_EQ(*n, 2);
  struct stat st {};
  ASSERT_EQ(::lstat((s.clone + "/tool").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
}

TEST(ContainerPhase, TheExitCodeOfTheCommandIsThePhasesExitCode) {
  AW_NEED_ENGINE(e);
  test::Scratch s;
  auto plan = test::plan_for(e, s);
  auto r = run_phase_in(plan, sh("exit 7"));
  EXPECT_EQ(exit_code(r), 7) << r.err;
}

}  // namespace
}  // namespace aw
