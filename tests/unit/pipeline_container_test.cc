// The unit pipeline end to end with isolation container: the real binary, a real engine (started
// by scripts/engine-up) and the local test image (scripts/test-image). Skips without an engine,
// fails under CI=true. The agents are scripts committed in the repository (tools/), since the
// container sees only the clone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "../isolate/container/tiny_http.h"
#include "container_pipeline.h"
#include "isolate/container/engine.h"
#include "proc/capture.h"
#include "unit_fixture.h"
#include "user_pipeline.h"

namespace aw::test {
namespace {

TEST_F(ContainerPipeline, HappyPathRunsInsideTheImageAndPublishesTheAgentsWork) {
  setup({{"README.md", "hello\n"}, {"src/a.txt", "one\n"}}, R"(
cat > "$AWAYWORK_OUTPUTS/prompt-seen"
echo two >> src/a.txt
echo new > NEW.md
if [ -f /.dockerenv ] || [ -f /run/.containerenv ]; then echo container > "$AWAYWORK_OUTPUTS/where"; fi
cat /proc/sys/kernel/hostname > "$AWAYWORK_OUTPUTS/hostname"
env > "$AWAYWORK_OUTPUTS/env"
echo "$HOME" > "$AWAYWORK_OUTPUTS/home"
touch "$HOME/.history"
echo '{"type":"noop","message":"from inside"}' >> "$AWAYWORK_OUTPUTS/requests.jsonl"
echo "agent done")",
        "    checks: [\"test -f NEW.md\", [grep, -q, two, src/a.txt]]\n",
        "    env: [AW_TEST_GIVEN]\n");
  auto r = run_unit("Add a line to a.txt", {},
                    {"AW_TEST_CANARY=owner-canary-5512", "AW_TEST_GIVEN=given-by-name-7731"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto& u = r.record;
  EXPECT_EQ(u["state"], "done");
  EXPECT_EQ(u["verdict"], "accepted");
  EXPECT_EQ(u["sandbox"], std::string("sandboxed: container docker ") + kImage + ", network none");
  std::string branch = u["branch"], id = u["id"];
  EXPECT_EQ(git({"show", branch + ":src/a.txt"}), "one\ntwo\n");
  EXPECT_EQ(git({"show", branch + ":NEW.md"}), "new\n");
  ASSERT_EQ(u["phases"].size(), 3u);
  EXPECT_EQ(u["patch_files"], 2);
  EXPECT_EQ(u["requests"], 1);
  EXPECT_NE(read(u["run_dir"].get<std::string>() + "/requests.json").find("from inside"),
            std::string::npos);

  std::string work = u["run_dir"].get<std::string>() + "/work";
  std::string out = work + "/.away/outputs";
  EXPECT_EQ(read(out + "/prompt-seen"), "Add a line to a.txt");
  EXPECT_EQ(read(out + "/where"), "container\n");
  EXPECT_EQ(read(out + "/hostname"), "awaywork\n");
  EXPECT_EQ(read(out + "/home"), work + "/.away/home\n");
  std::string env = read(out + "/env");
  EXPECT_EQ(env.find("owner-canary-5512"), std::string::npos) << env;
  EXPECT_NE(env.find("AW_TEST_GIVEN=given-by-name-7731"), std::string::npos) << env;
  EXPECT_NE(env.find("AWAYWORK_PHASE=agent"), std::string::npos) << env;
  EXPECT_NE(env.find("AWAYWORK_OUTPUTS=" + out + "\n"), std::string::npos) << env;
  EXPECT_NE(read(u["run_dir"].get<std::string>() + "/transcript.log").find("agent done"),
            std::string::npos);

  EXPECT_EQ(read(u["run_dir"].get<std::string>() + "/patch.diff").find(".away"), std::string::npos);
  EXPECT_EQ(git({"ls-tree", "-r", "--name-only", branch}).find(".away"), std::string::npos);
  EXPECT_FALSE(exists(work + "/.away/home")) << "the unit's HOME goes with the unit";
  EXPECT_TRUE(containers_of(id).empty());
}

TEST_F(ContainerPipeline, DetachedProcessInsideDiesWithItsContainer) {
  setup({{"a.txt", "x\n"}}, R"(
setsid sleep 622.5 </dev/null >/dev/null 2>&1 &
nohup sleep 622.5 </dev/null >/dev/null 2>&1 &
echo y > a.txt)");
  auto r = run_unit("detach");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_FALSE(process_alive_with("622.5"));
  EXPECT_TRUE(containers_of(r.record["id"]).empty());
}

TEST_F(ContainerPipeline, HangingAgentIsStoppedAtTheUnitTimeAndItsContainerRemoved) {
  setup({{"a.txt", "x\n"}}, "trap '' TERM\nsleep 621.25");
  auto r = run_unit("hang", {"--unit-seconds", "3"});
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "timed_out");
  EXPECT_EQ(r.record["phases"][0]["end"], "timed_out");
  EXPECT_FALSE(process_alive_with("621.25"));
  EXPECT_TRUE(containers_of(r.record["id"]).empty());
  EXPECT_EQ(git({"branch", "--list", "awaywork/*"}), "");
}

// The bit is cleared in the clone as soon as the container is gone; git records only 100755.
TEST_F(ContainerPipeline, SetuidFileMadeInsideComesOutWithoutTheBit) {
  setup({{"a.txt", "x\n"}}, R"(
printf '#!/bin/sh\necho hi\n' > tool.sh
chmod 6755 tool.sh
test -u tool.sh)",
        "    bounds: {allow_executables: true}\n");
  auto r = run_unit("setuid");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string work = r.record["run_dir"].get<std::string>() + "/work";
  EXPECT_FALSE(setid(work + "/tool.sh"));
  EXPECT_NE(r.record["notes"].dump().find("cleared setuid/setgid bits on 1 file"),
            std::string::npos)
      << r.record["notes"].dump();
  std::string branch = r.record["branch"];
  EXPECT_EQ(git({"ls-tree", branch, "tool.sh"}).substr(0, 6), "100755");
}

// The setup phase replaces .away with a link to a host folder; the agent un-ignores .away/ and
// writes there. Nothing of it is collected, and removing the unit's HOME does not follow the link.
TEST_F(ContainerPipeline, AwayFolderStaysOutOfThePatchAndItsLinksAreNotFollowed) {
  std::string decoy = root + "/decoy";
  std::filesystem::create_directories(decoy + "/home");
  std::filesystem::create_directories(decoy + "/outputs");
  { std::ofstream(decoy + "/home/keep") << "owner's\n"; }
  { std::ofstream(decoy + "/outputs/requests.jsonl") << "not json\n"; }
  setup({{"a.txt", "x\n"}, {"tools/plant.sh", "rm -rf .away && ln -s " + decoy + " .away\n"}},
        R"(
echo y > a.txt
printf '!/.away/\n!.away\n' > .gitignore
echo planted > .away/home/planted
echo planted > "$AWAYWORK_OUTPUTS/planted")",
        "    setup: [sh, tools/plant.sh]\n");
  auto r = run_unit("plant");
  // The output check refuses the .gitignore change itself (git metadata); the patch is still kept.
  EXPECT_EQ(r.record["state"], "refused") << r.out;
  EXPECT_EQ(read(decoy + "/home/keep"), "owner's\n");
  std::string patch = read(r.record["run_dir"].get<std::string>() + "/patch.diff");
  EXPECT_NE(patch.find("b/a.txt"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("planted"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("b/.away"), std::string::npos) << patch;
  EXPECT_NE(r.record["notes"].dump().find("not a folder"), std::string::npos)
      << r.record["notes"].dump();
}

TEST_F(ContainerPipeline, PromptFileModeGivesTheAgentThePromptInsideTheClone) {
  setup({{"a.txt", "x\n"}}, R"(
cp "$1" "$AWAYWORK_OUTPUTS/from-argv"
cp "$AWAYWORK_PROMPT_FILE" "$AWAYWORK_OUTPUTS/from-env"
echo "$AWAYWORK_PROMPT_FILE" > "$AWAYWORK_OUTPUTS/path")");
  write_config("sh, tools/agent.sh, \"{prompt_file}\"",
               std::string("    image: ") + kImage + "\nisolation: container\n",
               "    prompt: file\n");
  auto r = run_unit("the plan 4471");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string work = r.record["run_dir"].get<std::string>() + "/work";
  EXPECT_EQ(read(work + "/.away/outputs/from-argv"), "the plan 4471");
  EXPECT_EQ(read(work + "/.away/outputs/from-env"), "the plan 4471");
  EXPECT_EQ(read(work + "/.away/outputs/path"), work + "/.away/prompt.md\n");
}

TEST_F(ContainerPipeline, CtrlCStopsThePhaseAndRemovesItsContainer) {
  setup({{"a.txt", "x\n"}}, "touch \"$AWAYWORK_OUTPUTS/started\"\nsleep 618.5");
  auto [pid, unit] = start_until_agent_started("wait for ctrl-c");
  ASSERT_FALSE(unit.empty()) << "the agent never started";
  EXPECT_EQ(containers_of(unit).size(), 1u);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status;
  EXPECT_TRUE(containers_of(unit).empty());
  EXPECT_FALSE(process_alive_with("618.5"));
}

TEST_F(ContainerPipeline, ContainerOfACrashedAwayworkIsRemovedAtTheNextStart) {
  setup({{"a.txt", "x\n"}}, "touch \"$AWAYWORK_OUTPUTS/started\"\nsleep 619.5");
  auto [pid, unit] = start_until_agent_started("crash");
  ASSERT_FALSE(unit.empty()) << "the agent never started";
  kill(pid, SIGKILL);  // no chance to clean up: the container outlives its client
  waitpid(pid, nullptr, 0);
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out << list.err;
  EXPECT_EQ(list.record[0]["state"], "interrupted");
  EXPECT_TRUE(containers_of(unit).empty()) << "the next start removes the crashed unit's container";
}

TEST_F(ContainerPipeline, MissingImageFailsBeforeAnyPhaseAndSaysHowToGetIt) {
  make_repo({{"a.txt", "x\n"}});
  write_config("sh", "    image: awaywork-absent:never\nisolation: container\n");
  auto r = run_unit("nothing");
  EXPECT_NE(r.exit_code, 0);
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("awaywork-absent:never"), std::string::npos) << all;
  EXPECT_NE(all.find("scripts/test-image"), std::string::npos) << all;
}

TEST_F(ContainerPipeline, NoImageConfiguredNamesTheKeyToSet) {
  make_repo({{"a.txt", "x\n"}});
  write_config("sh", "isolation: container\n");
  auto r = run_unit("nothing");
  EXPECT_NE(r.exit_code, 0);
  std::string all = r.out + r.err;
  EXPECT_NE(all.find("container_image"), std::string::npos) << all;
}

TEST_F(ContainerPipeline, DoctorChecksTheEngineTheImageAndTheAgentsProgram) {
  make_repo({{"a.txt", "x\n"}});
  write_config("sh, tools/agent.sh",
               std::string("    image: ") + kImage + "\nisolation: container\n");
  auto r = awaywork({"doctor", "--json"});
  std::string all = r.out;
  EXPECT_NE(all.find("answers"), std::string::npos) << all;
  EXPECT_NE(all.find(std::string("image ") + kImage + " is present"), std::string::npos) << all;
  EXPECT_NE(all.find("sh is in image"), std::string::npos) << all;
  EXPECT_EQ(all.find("tools/agent.sh"), std::string::npos) << "relative paths run from the clone";
  // A warning passes but says so, with its fix.
  if (::geteuid() == 0) {
    EXPECT_NE(all.find("warning; run awaywork as an unprivileged owner"), std::string::npos) << all;
  }
}

// network: allowlist: the unit's phases reach an allowed host only through awaywork's egress
// proxy (a bridge container relays 127.0.0.1:3128 of the namespace they join); a host not listed
// gets 403; a direct connection goes nowhere. The bridge goes with the unit.
TEST_F(ContainerPipeline, AllowlistReachesAnAllowedHostOnlyThroughTheEgressProxy) {
  TinyHttp http;
  ASSERT_GT(http.port, 0);
  std::string allowed = fmt::format("127.0.0.1:{}", http.port);
  // GET through HTTP_PROXY with bash's /dev/tcp (the image has no curl); the status line.
  std::string get =
      "p=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${p%:*}/${p##*:} || exit 9\n"
      "printf 'GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' "
      "\"$1\" \"$1\" >&3\n"
      "head -n1 <&3 | tr -d '\\r'\n";
  setup({{"a.txt", "x\n"}, {"tools/get.sh", get}},
        fmt::format(R"(cat >/dev/null
echo "$HTTP_PROXY" > "$AWAYWORK_OUTPUTS/proxy"
bash tools/get.sh {} > "$AWAYWORK_OUTPUTS/allowed" 2>&1 || true
bash tools/get.sh denied.example:80 > "$AWAYWORK_OUTPUTS/denied" 2>&1 || true
bash -c '(exec 3<>/dev/tcp/127.0.0.1/{}) 2>/dev/null && echo reached || echo refused' > "$AWAYWORK_OUTPUTS/direct"
echo y >> a.txt)",
                    allowed, http.port),
        "sandbox: {network: allowlist, allow: [\"127.0.0.1\"]}\n");
  auto r = run_unit("fetch");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string id = r.record["id"],
              out = r.record["run_dir"].get<std::string>() + "/work/.away/outputs";
  EXPECT_EQ(r.record["sandbox"], std::string("sandboxed: container docker ") + kImage +
                                     ", network allowlist (1 allowed host(s) through the egress "
                                     "proxy)");
  EXPECT_EQ(read(out + "/proxy"), "http://127.0.0.1:3128\n");
  EXPECT_EQ(read(out + "/allowed"), "HTTP/1.1 200 OK\n");
  EXPECT_EQ(read(out + "/denied").rfind("HTTP/1.1 403", 0), 0u) << read(out + "/denied");
  EXPECT_EQ(read(out + "/direct"), "refused\n");
  EXPECT_EQ(http.served, 1);
  EXPECT_NE(read(r.record["run_dir"].get<std::string>() + "/egress.log").find("denied.example"),
            std::string::npos);
  EXPECT_TRUE(containers_of(id).empty()) << "the bridge goes with the unit";
}

// An injected secret (issue 27): every phase, not only the agent's, gets the unit's CA bundle
// variables (by value: SSL_CERT_FILE by name would steer the engine's client) and can read the
// bundle, lent read-only at its own path. Before, the setup and check phases lacked them and the
// agent phase's launcher was refused (SSL_CERT_FILE passed by name).
TEST_F(ContainerPipeline, EveryPhaseTrustsTheUnitsCaBundleWhenASecretIsInjected) {
  use_test_secret_store();
  store_secret("NPM_TOKEN", "npm_FAKEfakeFAKEfakeFAKEfakeFAKEfake4242");
  std::string trust =
      "f=\"$AWAYWORK_OUTPUTS/trust-$1\"\n"
      "echo \"SSL_CERT_FILE=${SSL_CERT_FILE:-}\" > \"$f\"\n"
      "echo \"GIT_SSL_CAINFO=${GIT_SSL_CAINFO:-}\" >> \"$f\"\n"
      "if grep -q 'BEGIN CERTIFICATE' \"${SSL_CERT_FILE:-/none}\" 2>/dev/null; then echo readable; "
      "else echo unreadable; fi >> \"$f\"\n";
  setup({{"a.txt", "x\n"}, {"tools/trust.sh", trust}},
        "cat >/dev/null\nsh tools/trust.sh agent\necho y >> a.txt",
        "    setup: [sh, tools/trust.sh, setup]\n    checks: [[sh, tools/trust.sh, check]]\n",
        "sandbox: {network: allowlist, allow: [npm.example.test]}\n"
        "secrets:\n  NPM_TOKEN:\n    inject: [{host: npm.example.test}]\n");
  auto r = run_unit("trust the unit's CA");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string run_dir = r.record["run_dir"];
  std::string bundle = run_dir + "/ca-bundle.pem";
  for (const char* phase : {"setup", "agent", "check"}) {
    EXPECT_EQ(read(run_dir + "/work/.away/outputs/trust-" + phase),
              "SSL_CERT_FILE=" + bundle + "\nGIT_SSL_CAINFO=" + bundle + "\nreadable\n")
        << phase;
  }
}

TEST_F(ContainerPipeline, BridgeOfACrashedAllowlistUnitIsRemovedAtTheNextStart) {
  setup({{"a.txt", "x\n"}}, "touch \"$AWAYWORK_OUTPUTS/started\"\nsleep 623.5",
        "sandbox: {network: allowlist, allow: [example.org]}\n");
  auto [pid, unit] = start_until_agent_started("crash with a bridge");
  ASSERT_FALSE(unit.empty()) << "the agent never started";
  EXPECT_EQ(containers_of(unit).size(), 2u) << "the phase and the bridge";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  auto list = awaywork({"units", "--json"});
  ASSERT_EQ(list.record.size(), 1u) << list.out << list.err;
  EXPECT_TRUE(containers_of(unit).empty()) << "the next start removes the phase and the bridge";
}

// The same unit under each isolation: the patch and the verdict come out the same.
class EveryIsolation : public ContainerPipeline, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "container") return ContainerPipeline::SetUp();
    UnitTest::SetUp();
  }
};

TEST_P(EveryIsolation, SameUnitGivesTheSamePatchAndVerdict) {
  std::string isolation = GetParam();
  std::map<std::string, std::string> files = {
      {"src/a.txt", "one\n"},
      {"README.md", "hello\n"},
      {"tools/agent.sh",
       "set -eu\ncat >/dev/null\necho two >> src/a.txt\necho new > NEW.md\n"
       "rm README.md\n"
       "echo '{\"type\":\"noop\",\"message\":\"same\"}' >> "
       "\"$AWAYWORK_OUTPUTS/requests.jsonl\"\n"}};
  make_repo(files);
  std::string repo_extra = "    checks: [\"test -f NEW.md\", [grep, -q, two, src/a.txt]]\n";
  if (isolation == "container")
    repo_extra += std::string("    image: ") + kImage + "\ncontainer_engine: docker\n";
  const Users* u = nullptr;
  if (isolation == "user") {
    // Real owner and worker users; awaywork runs as the owner, in the sandbox the worker builds.
    std::string why;
    u = users(why);
    if (!u) {
      if (in_ci() || ::geteuid() == 0) FAIL() << why;
      GTEST_SKIP() << why;
    }
    std::filesystem::create_directories(root + "/state");
    ASSERT_EQ(sh(fmt::format("chmod 711 {0} && chown -R {1}: {0}/src {0}/state && chmod 700 "
                             "{0}/src {0}/state",
                             root, u->owner)),
              0);
    repo_extra +=
        "worker_user: " + std::string(kWorker) + "\nsandbox: {mode: required, limits: off}\n";
  }
  write_config("sh, tools/agent.sh", repo_extra + "isolation: " + isolation + "\n");
  ::chmod(config.c_str(), 0644);
  auto r = u ? run_captured(owner_capture_spec(
                   *u, config, {"run", "--repo", "src", "--prompt", "the same task", "--json"}))
             : run_unit("the same task");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["state"], "done");
  EXPECT_EQ(r.record["verdict"], "accepted");
  EXPECT_EQ(r.record["patch_files"], 3);
  EXPECT_EQ(r.record["requests"], 1);
  EXPECT_EQ(
      read(r.record["run_dir"].get<std::string>() + "/patch.diff"),
      "diff --git a/NEW.md b/NEW.md\n"
      "new file mode 100644\n"
      "index 0000000000000000000000000000000000000000..3e757656cf36eca53338e520d134963a44f793f8\n"
      "--- /dev/null\n"
      "+++ b/NEW.md\n"
      "@@ -0,0 +1 @@\n"
      "+new\n"
      "diff --git a/README.md b/README.md\n"
      "deleted file mode 100644\n"
      "index ce013625030ba8dba906f756967f9e9ca394464a..0000000000000000000000000000000000000000\n"
      "--- a/README.md\n"
      "+++ /dev/null\n"
      "@@ -1 +0,0 @@\n"
      "-hello\n"
      "diff --git a/src/a.txt b/src/a.txt\n"
      "index 5626abf0f72e58d7a153368ba57db4c673c0e171..814f4a422927b82f5f8a43f8fab6d3839e3983f2 "
      "100644\n"
      "--- a/src/a.txt\n"
      "+++ b/src/a.txt\n"
      "@@ -1 +1,2 @@\n"
      " one\n"
      "+two\n")
      << isolation;
  std::string branch = r.record["branch"];
  if (!u) {
    EXPECT_EQ(git({"show", branch + ":src/a.txt"}), "one\ntwo\n");
    return;
  }
  // The owner's repository: read as the owner (root's git refuses it); the clone's unit folder
  // stays for inspection, removed here.
  EXPECT_EQ(
      sh_out(fmt::format("runuser -u {} -- git -C {} show {}:src/a.txt", u->owner, src, branch)),
      "one\ntwo\n");
  auto where = nlohmann::json::parse(
      read(r.record["run_dir"].get<std::string>() + "/isolation.json"), nullptr, false);
  if (where.is_object())
    std::filesystem::remove_all(
        std::filesystem::path(where["clone"].get<std::string>()).parent_path());
}

// isolation user runs with its real owner and worker users (tests/isolate/user's fixture), awaywork
// as that owner.
INSTANTIATE_TEST_SUITE_P(Isolations, EveryIsolation, ::testing::Values("none", "container", "user"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace aw::test
