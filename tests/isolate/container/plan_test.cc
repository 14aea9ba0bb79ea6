// The client's argv and environment for a phase: what is passed, what is refused. No engine.
#include <gtest/gtest.h>

#include <algorithm>

#include "isolate/container/container_launcher.h"

namespace aw {
namespace {

ContainerPlan plan() {
  ContainerPlan p;
  p.engine.client = "/usr/bin/docker";
  p.engine.client_env = {"PATH=/usr/bin:/bin", "HOME=/root"};
  p.image = "img:1";
  p.clone = "/tmp/runs/u1/work";
  p.uid = 1000;
  p.gid = 1000;
  p.placeholders = {{"AWAYWORK_UNIT", "u1"}};
  return p;
}

ExecRequest request() {
  ExecRequest r;
  r.argv = {"claude", "-p"};
  r.cwd = "/tmp/runs/u1/work";
  r.env = {"PATH=/usr/bin", "HOME=/root", "ANTHROPIC_API_KEY=sk-ant-fake-000000000000",
           "GITHUB_TOKEN=ghp_fakefakefakefakefakefakefakefakefake"};
  return r;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& a : v) s += a + " ";
  return s;
}

TEST(ContainerPlan, ArgvHasTheHardeningAndSecretsOnlyByName) {
  auto p = plan();
  p.secret_names = {"ANTHROPIC_API_KEY"};
  auto a = container_run_argv(p, "aw-u1-agent", request());
  ASSERT_TRUE(a) << a.error().message;
  std::string s = joined(*a);
  for (const char* want :
       {"run --rm -i --name=aw-u1-agent ", "--pull never", "--user 1000:1000 ", "--cap-drop ALL ",
        "--security-opt no-new-privileges ", "--network none ", "--pids-limit 512 ",
        "--mount=type=bind,source=/tmp/runs/u1/work,target=/tmp/runs/u1/work --workdir=",
        "--env=HOME=/tmp/runs/u1/work/.away/home ", "--env=AWAYWORK_UNIT=u1 ",
        "--env=ANTHROPIC_API_KEY --entrypoint=claude img:1 -p "})
    EXPECT_NE(s.find(want), std::string::npos) << want << "\n in: " << s;
  EXPECT_EQ(s.find("sk-ant-fake"), std::string::npos);
  EXPECT_EQ(s.find("GITHUB_TOKEN"), std::string::npos) << "not named: not passed";
  EXPECT_EQ(s.find("/var/run/docker.sock"), std::string::npos);
}

TEST(ContainerPlan, TheSecretValueIsOnlyInTheClientsEnvironment) {
  auto p = plan();
  p.secret_names = {"ANTHROPIC_API_KEY"};
  auto env = container_client_env(p, request());
  EXPECT_TRUE(has(env, "ANTHROPIC_API_KEY=sk-ant-fake-000000000000"));
  EXPECT_FALSE(has(env, "GITHUB_TOKEN=ghp_fakefakefakefakefakefakefakefakefake"));
  EXPECT_TRUE(has(env, "HOME=/root")) << "the client's HOME is the owner's, never the clone's";
}

TEST(ContainerPlan, ASecretMissingFromTheEnvironmentIsNotNamed) {
  auto p = plan();
  p.secret_names = {"OPENAI_API_KEY"};
  auto a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_FALSE(has(*a, "--env=OPENAI_API_KEY"));
}

TEST(ContainerPlan, RefusesSecretNamesThatWouldSteerTheClient) {
  for (const char* bad : {"DOCKER_HOST", "docker_config", "PATH", "HOME", "LD_PRELOAD",
                          "HTTPS_PROXY", "XDG_CONFIG_HOME", "CONTAINERS_CONF", "A-B", "1X"}) {
    auto p = plan();
    p.secret_names = {bad};
    EXPECT_FALSE(make_container_launcher(p, "n")) << bad;
  }
}

TEST(ContainerPlan, RefusesPathsThatWouldAddMountFields) {
  for (const char* bad :
       {"relative/work", "/tmp/a,readonly=false", "/tmp/a\"b", "/tmp/a/../b", "/tmp/a\nb", ""}) {
    auto p = plan();
    p.clone = bad;
    EXPECT_FALSE(make_container_launcher(p, "n")) << bad;
    p = plan();
    p.plugin_dir = bad;
    if (*bad) {
      EXPECT_FALSE(make_container_launcher(p, "n")) << bad;
    }
  }
}

TEST(ContainerPlan, RefusesBadContainerNames) {
  for (const char* bad : {"", "-rm", "a b", "a/b", "--privileged"})
    EXPECT_FALSE(container_run_argv(plan(), bad, request())) << bad;
}

TEST(ContainerPlan, AllowlistWithoutTheEgressProxyIsRefused) {
  auto p = plan();
  p.network = Network::allowlist;
  EXPECT_FALSE(make_container_launcher(p, "n"));
  p.proxy_network = "aw-u1-bridge";
  auto a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--network=container:aw-u1-bridge "), std::string::npos);
  EXPECT_EQ(joined(*a).find("--hostname"), std::string::npos) << "the engine refuses both";
  p.seccomp_profile = "/state/runs/u1/seccomp.json";
  a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--security-opt=seccomp=/state/runs/u1/seccomp.json "),
            std::string::npos);
  p.proxy_network = "--network=host";
  EXPECT_FALSE(make_container_launcher(p, "n"));
}

// network none with a bridge (the inference proxy's): the phase joins the bridge's namespace,
// whose only way out are the bridge's ports; network host has the host's loopback and joins none.
TEST(ContainerPlan, NetworkNoneJoinsTheBridgeWhenGivenOneAndHostNever) {
  auto p = plan();
  auto a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--network none "), std::string::npos);
  p.proxy_network = "aw-u1-bridge";
  a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--network=container:aw-u1-bridge "), std::string::npos);
  EXPECT_EQ(joined(*a).find("--network none"), std::string::npos);
  EXPECT_EQ(joined(*a).find("--hostname"), std::string::npos) << "the engine refuses both";
  p.proxy_network = "-x";
  EXPECT_FALSE(make_container_launcher(p, "n"));
  p.network = Network::host;
  p.proxy_network = "aw-u1-bridge";
  EXPECT_FALSE(make_container_launcher(p, "n"));
}

TEST(ContainerPlan, LentFilesAreMountedReadOnlyAndRefusedWhenTheyWouldAddFields) {
  auto p = plan();
  p.readonly_files = {{"/opt/aw/aw_probe_static", "/.awaywork/probe"}};
  auto a = container_run_argv(p, "n", request());
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--mount=type=bind,source=/opt/aw/aw_probe_static,target=/.awaywork/"
                            "probe,readonly "),
            std::string::npos);
  p.readonly_files = {{"/opt/aw/x,target=/etc", "/p"}};
  EXPECT_FALSE(make_container_launcher(p, "n"));
  p.readonly_files = {{"relative", "/p"}};
  EXPECT_FALSE(make_container_launcher(p, "n"));
}

TEST(ContainerPlan, AWorkingFolderOutsideTheCloneFallsBackToTheClone) {
  auto r = request();
  r.cwd = "/root";
  auto a = container_run_argv(plan(), "n", r);
  ASSERT_TRUE(a);
  EXPECT_NE(joined(*a).find("--workdir=/tmp/runs/u1/work "), std::string::npos);
  r.cwd = "/tmp/runs/u1/workother";
  a = container_run_argv(plan(), "n", r);
  EXPECT_NE(joined(*a).find("--workdir=/tmp/runs/u1/work "), std::string::npos);
}

TEST(ContainerPlan, PodmanGetsUlimitsThatFitAndDockerKeepsItsOwn) {
  auto p = plan();
  auto a = container_run_argv(p, "n", request());
  EXPECT_EQ(joined(*a).find("--ulimit"), std::string::npos);
  p.engine.kind = EngineKind::podman;
  a = container_run_argv(p, "n", request());
  EXPECT_NE(joined(*a).find("--ulimit " + fitting_ulimits()[0]), std::string::npos);
}

TEST(ContainerPlan, NoValueFromOutsideCanBecomeAFlagOfTheClient) {
  auto p = plan();
  p.image = "--privileged";
  EXPECT_FALSE(make_container_launcher(p, "n"));
  p = plan();
  p.placeholders = {{"AWAYWORK_PHASE", "--privileged"}};
  auto r = request();
  r.argv = {"--privileged", "--network=host"};
  auto a = container_run_argv(p, "n", r);
  ASSERT_TRUE(a);
  EXPECT_FALSE(has(*a, "--privileged"));
  EXPECT_TRUE(has(*a, "--env=AWAYWORK_PHASE=--privileged"));
  EXPECT_TRUE(has(*a, "--entrypoint=--privileged"));
  // After the image, words are the command's own: the client parses no flag there.
  auto image_at = std::find(a->begin(), a->end(), "img:1");
  ASSERT_NE(image_at, a->end());
  EXPECT_EQ(*(image_at + 1), "--network=host");
  EXPECT_EQ(image_at + 2, a->end());
}

}  // namespace
}  // namespace aw
