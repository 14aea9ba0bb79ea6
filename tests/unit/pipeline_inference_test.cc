// The real agent CLIs as a unit's agent, end to end: in the default sandbox (network none), through
// awaywork's inference proxy (bridged onto 127.0.0.1:4180 inside), against the fake vendor APIs of
// tests/fakes served over TLS with a certificate made here (a separate test server: a fake, since
// no model API exists offline). The real key lives in the secret store and reaches only the fake;
// the agent sees a run token, which is revoked when the unit ends. Under isolation container the
// proxy's socket is relayed onto 127.0.0.1:4180 by the unit's bridge container, whose network
// namespace the phase joins.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../isolate/container/fixture.h"
#include "fake_server.h"
#include "isolate/container/engine.h"
#include "proc/capture.h"
#include "provider/doctor.h"
#include "unit_fixture.h"

namespace aw::test {
namespace {

// Fake keys shaped like real ones; valid nowhere (kAnthropicKey, kOpenaiKey: unit_fixture.h).
// What the fake model "leaks" in its final message: the transcript must show it redacted.
const std::string kLeaked = "ghp_FAKEleakedFAKEleakedFAKEleakedFAKE12";

#define REQUIRE_CLI(name)                                                                   \
  do {                                                                                      \
    if (::access((agent_clis_bin() + "/" name).c_str(), X_OK) != 0) {                       \
      const char* ci = ::getenv("CI");                                                      \
      if (ci && std::string(ci) == "true")                                                  \
        FAIL() << name " is not in " << agent_clis_bin()                                    \
               << " (CI=true: no skip); run scripts/agent-clis";                            \
      GTEST_SKIP() << name " is not in " << agent_clis_bin() << "; run scripts/agent-clis"; \
    }                                                                                       \
  } while (0)

// The engine of tests/isolate/container's fixture as `var`; fails under CI=true, else skips,
// without one.
#define REQUIRE_ENGINE(var)                                                     \
  std::string var##_why;                                                        \
  const Engine* var = test_engine(&var##_why);                                  \
  if (!var) {                                                                   \
    if (under_ci()) FAIL() << "CI=true and no container engine: " << var##_why; \
    GTEST_SKIP() << "no container engine: " << var##_why;                       \
  }

class Inference : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    use_test_secret_store();
    put_agent_clis_on_path();
    // The fake's certificate, trusted by the proxy through `ca_file` only.
    ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
    make_repo({{"README.md", "a repo\n"}});
  }
  void TearDown() override {
    fake_.stop();
    UnitTest::TearDown();
  }

  void start_fake(const std::string& script) {
    fake_log_ = root + "/fake.jsonl";
    ASSERT_TRUE(fake_.start(script, fake_log_,
                            {"--tls", root + "/cert.pem", root + "/key.pem", "--final",
                             "Done: I wrote the file. " + kLeaked}));
  }

  // agents.NAME runs PROVIDER through the proxy to `upstream` (api), its key in SECRET.
  // isolation "container": in the test image (docker), the agent's command from the clone.
  void write_inference_config(const std::string& provider, const std::string& api,
                              const std::string& command = "", const std::string& isolation = "") {
    bool container = isolation == "container";
    std::ofstream(config) << "state_dir: " << root << "/state\n"
                          << (container ? "isolation: container\ncontainer_engine: docker\n" : "")
                          << "agent: model\n"
                          << "agents:\n  model:\n    provider: " << provider << "\n"
                          << "    inference: upstream\n"
                          << (command.empty() ? "" : "    command: " + command + "\n")
                          << "inference:\n  upstream:\n    api: " << api << "\n"
                          << "    url: https://localhost:" << fake_.port() << "\n"
                          << "    credential: MODEL_KEY\n"
                          << "    ca_file: " << root << "/cert.pem\n"
                          << "repos:\n  src:\n    path: " << src << "\n"
                          << (container ? std::string("    image: ") + kImage + "\n" : "");
  }

  // Adds files to the repository's main branch (the container sees only the clone).
  void commit(const std::map<std::string, std::string>& files) {
    for (const auto& [path, content] : files) {
      std::filesystem::create_directories(std::filesystem::path(src + "/" + path).parent_path());
      std::ofstream(src + "/" + path) << content;
      git({"add", path});
    }
    git({"commit", "-qm", "add files"});
  }

  // The unit's files that a reader of the record sees.
  std::string recorded(const std::string& run_dir) {
    return read(run_dir + "/transcript.log") + read(run_dir + "/events.json") +
           read(run_dir + "/summary.json") + read(run_dir + "/patch.diff");
  }

  void expect_fake_saw_only_the_real_key(const std::string& header, const std::string& want,
                                         size_t at_least = 2) {
    auto reqs = log_lines(read(fake_log_));
    ASSERT_GE(reqs.size(), at_least) << read(fake_log_);
    for (const auto& r : reqs) {
      EXPECT_EQ(r["headers"].value(header, ""), want) << r["path"];
      EXPECT_EQ(r.dump().find("awrun-"), std::string::npos) << "a run token reached the vendor";
    }
  }

  // A wrapper around the CLI that dumps, from inside the sandbox, everything the agent could read:
  // its environment, every /proc/*/environ and cmdline it can see, and every file under HOME,
  // TMPDIR and the clone, before and after the CLI runs.
  std::string scan_wrapper() {
    return agent_script(
        "scan-around",
        "set +e\n"
        "scan() {\n"
        "  { env; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < \"$f\"; "
        "done; find \"$HOME\" \"$TMPDIR\" . -type f -exec cat {} + ; } > "
        "\"$AWAYWORK_OUTPUTS/scan-$1\" "
        "2>/dev/null\n"
        "}\n"
        "scan before\n\"$@\"\nrc=$?\nscan after\nexit $rc\n");
  }

  std::string fake_log_;
  FakeServer fake_;
};

TEST_F(Inference, ClaudeEditsThroughTheProxyInTheSandboxAndTheRealKeyNeverEntersIt) {
  REQUIRE_CLI("claude");
  start_fake("fake_anthropic.py");
  store_secret("MODEL_KEY", kAnthropicKey);
  write_inference_config("claude", "anthropic",
                         "[" + scan_wrapper() +
                             ", claude, -p, --output-format, stream-json, --verbose, "
                             "--permission-mode, bypassPermissions]");
  CmdlineScanner scanner({kAnthropicKey});
  std::atomic<bool> done{false};
  std::vector<std::string> hits;
  std::thread scan([&] {
    while (!done)
      for (auto& h : scanner.pass()) hits.push_back(h);
  });
  auto r = run_unit("Write the file AWAYWORK_FAKE_EDIT.txt, then say you are done.");
  done = true;
  scan.join();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const auto& h : hits) ADD_FAILURE() << "the model key on a command line: " << h;
  const auto& u = r.record;
  EXPECT_NE(u["sandbox"].get<std::string>().find("sandboxed: network none"), std::string::npos);
  std::string run_dir = u["run_dir"];

  // The edit the fake model asked for is the unit's patch.
  EXPECT_NE(read(run_dir + "/patch.diff").find("+written by the fake model"), std::string::npos);
  // The vendor saw the real key, never the run token.
  expect_fake_saw_only_the_real_key("x-api-key", kAnthropicKey);
  // Inside: the run token (the scan works), never the real key.
  for (const char* when : {"before", "after"}) {
    std::string seen = read(run_dir + "/outputs/scan-" + when);
    EXPECT_NE(seen.find("ANTHROPIC_API_KEY=awrun-"), std::string::npos) << when;
    EXPECT_NE(seen.find("ANTHROPIC_BASE_URL=http://127.0.0.1:4180"), std::string::npos) << when;
    EXPECT_EQ(seen.find(kAnthropicKey), std::string::npos)
        << "the real key inside (" << when << ")";
  }
  // Recorded and redacted: the transcript and events hold the model's reply, not what it leaked.
  std::string rec = recorded(run_dir);
  EXPECT_NE(read(run_dir + "/transcript.log").find("Done: I wrote the file."), std::string::npos);
  EXPECT_EQ(rec.find(kLeaked), std::string::npos);
  EXPECT_EQ(rec.find(kAnthropicKey), std::string::npos);
  EXPECT_EQ(rec.find("awrun-"), std::string::npos) << "the run token in the record";
  std::string events = read(run_dir + "/events.json");
  EXPECT_NE(events.find("\"Write\""), std::string::npos) << events;
  EXPECT_NE(events.find("[REDACTED]"), std::string::npos) << events;
  // The proxy counted the turns; the token is revoked and the proxy gone with the unit.
  // The record names what the agent phase was handed, never its value.
  EXPECT_EQ(u["phases"][0]["secrets"], nlohmann::json::array({"ANTHROPIC_API_KEY (run token)"}));
  std::string notes = u["notes"].dump();
  EXPECT_NE(notes.find("0 refused by its limits; the run token is revoked"), std::string::npos)
      << notes;
  EXPECT_FALSE(can_connect(run_dir + "/inference.sock"));
  EXPECT_NE(read(run_dir + "/inference.log").find("\"status\":200"), std::string::npos);
}

TEST_F(Inference, CodexEditsThroughTheProxyInTheSandbox) {
  REQUIRE_CLI("codex");
  start_fake("fake_openai.py");
  store_secret("MODEL_KEY", kOpenaiKey);
  write_inference_config("codex", "openai");
  auto r = run_unit("Write the file AWAYWORK_FAKE_EDIT.txt, then say you are done.");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string run_dir = r.record["run_dir"];
  EXPECT_NE(read(run_dir + "/patch.diff").find("+written by the fake model"), std::string::npos)
      << read(run_dir + "/transcript.log");
  expect_fake_saw_only_the_real_key("authorization", "Bearer " + kOpenaiKey);
  std::string rec = recorded(run_dir);
  EXPECT_EQ(rec.find(kOpenaiKey), std::string::npos);
  EXPECT_EQ(rec.find(kLeaked), std::string::npos);
  EXPECT_NE(read(run_dir + "/events.json").find("Done: I wrote the file."), std::string::npos);
}

// The agent leaves its run token where a check phase (which shares the unit's network and its
// bridge to the proxy) can read it: by then the token is revoked.
TEST_F(Inference, ACheckPhaseCannotUseTheTokenTheAgentLeftBehind) {
  start_fake("fake_anthropic.py");
  store_secret("MODEL_KEY", kAnthropicKey);
  const std::string ask =
      "code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H \"x-api-key: $token\" "
      "-H 'content-type: application/json' -H 'anthropic-version: 2023-06-01' "
      "--data '{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\","
      "\"content\":\"hi\"}]}' http://127.0.0.1:4180/v1/messages)\n";
  std::string agent =
      agent_script("leave-token",
                   "token=$AWAYWORK_RUN_TOKEN\n"
                   "printf '%s' \"$token\" > \"$AWAYWORK_OUTPUTS/token\"\n" +
                       ask + "echo \"agent $code\" >> \"$AWAYWORK_OUTPUTS/codes\"\n");
  std::string check =
      agent_script("use-token", "token=$(cat \"$AWAYWORK_OUTPUTS/token\")\n" + ask +
                                    "echo \"check $code\" >> \"$AWAYWORK_OUTPUTS/codes\"\n");
  write_inference_config("command", "anthropic", "[" + agent + "]");
  std::ofstream(config, std::ios::app) << "    checks: [[" << check << "]]\n";
  auto r = run_unit("leave the token behind");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string codes = read(r.record["run_dir"].get<std::string>() + "/outputs/codes");
  EXPECT_EQ(codes, "agent 200\ncheck 401\n");
  expect_fake_saw_only_the_real_key("x-api-key", kAnthropicKey, 1);
  EXPECT_EQ(log_lines(read(fake_log_)).size(), 1u) << "the check's request reached the vendor";
}

TEST_F(Inference, AMissingModelKeyFailsTheUnitBeforeAnyPhaseNamingTheFix) {
  start_fake("fake_anthropic.py");
  write_inference_config("claude", "anthropic");
  auto r = run_unit("anything");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(r.record["phases"].empty()) << r.out;
  std::string reason = r.record["reason"];
  EXPECT_NE(reason.find("MODEL_KEY"), std::string::npos) << reason;
  EXPECT_NE(reason.find("awaywork secret set MODEL_KEY"), std::string::npos) << reason;
  EXPECT_TRUE(log_lines(read(fake_log_)).empty()) << "the vendor was called";
}

TEST_F(Inference, AProviderThatSpeaksAnotherApiIsRefusedBeforeAnyPhase) {
  start_fake("fake_anthropic.py");
  store_secret("MODEL_KEY", kAnthropicKey);
  write_inference_config("codex", "anthropic");
  auto r = run_unit("anything");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(r.record["phases"].empty()) << r.out;
  EXPECT_NE(r.record["reason"].get<std::string>().find("speaks the openai API"), std::string::npos)
      << r.out;
}

// The agent of this test (bash in the test image: no curl there). It tries the fake upstream
// directly (the host's loopback is not its own), then POSTs one non-streaming Messages request to
// the URL awaywork gave it with the run token, and keeps the answer in the clone. It says when it
// has asked and waits for the test to look at its container from outside.
std::string container_agent(int upstream_port) {
  return fmt::format(R"(set -eu
if (exec 3<>/dev/tcp/127.0.0.1/{0}) 2>/dev/null; then echo reached > direct.txt; else echo refused > direct.txt; fi
hp=${{AWAYWORK_INFERENCE_URL#http://}}
body='{{"model":"claude-sonnet-4-5","max_tokens":32,"messages":[{{"role":"user","content":"Say hi."}}]}}'
exec 3<>"/dev/tcp/${{hp%:*}}/${{hp##*:}}"
printf 'POST /v1/messages HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nanthropic-version: 2023-06-01\r\ncontent-type: application/json\r\ncontent-length: %s\r\nconnection: close\r\n\r\n%s' "$hp" "$AWAYWORK_RUN_TOKEN" "${{#body}}" "$body" >&3
response=$(cat <&3)
exec 3<&-
printf '%s\n' "${{response#*$'\r\n\r\n'}}" > answer.json
touch "$AWAYWORK_OUTPUTS/asked"
for i in $(seq 1200); do [ -e "$AWAYWORK_OUTPUTS/go" ] && break; sleep 0.1; done
echo asked the model
)",
                     upstream_port);
}

// What `docker inspect` shows of a running unit's containers, seen from outside while its agent
// waits: each container's command (Path, Args, Config.Cmd/Entrypoint), env and mounts.
struct Inspected {
  std::string unit;
  std::map<std::string, std::string> argv, env, mounts;  // by container name
};

Inspected inspect_unit(const Engine& engine, const std::string& unit) {
  Inspected in{unit, {}, {}, {}};
  auto names = containers_of_unit(engine, unit);
  if (!names) return in;
  auto field = [&](const std::string& name, const char* format) {
    auto o =
        engine_command(engine, {"inspect", "--format", format, name}, std::chrono::seconds(30));
    return o && o->exit_code == 0 ? o->out : std::string("inspect failed");
  };
  for (const auto& n : *names) {
    in.argv[n] = field(n,
                       "{{json .Path}} {{json .Args}} {{json .Config.Cmd}} "
                       "{{json .Config.Entrypoint}}");
    in.env[n] = field(n, "{{json .Config.Env}}");
    in.mounts[n] = field(n, "{{json .Mounts}}");
  }
  return in;
}

// isolation container, network none: the phase's only way out is 127.0.0.1:4180, which the unit's
// bridge container relays to the inference proxy's socket (mounted into the bridge only). The
// agent reaches the fake upstream through it with the run token; the upstream sees the real key;
// the token is passed by name (in the container's env, on no command line).
TEST_F(Inference, ContainerAgentReachesTheUpstreamOnlyThroughTheProxy) {
  REQUIRE_ENGINE(engine);
  start_fake("fake_anthropic.py");
  store_secret("MODEL_KEY", kAnthropicKey);
  commit({{"tools/agent.sh", container_agent(fake_.port())}});
  write_inference_config("command", "anthropic", "[bash, tools/agent.sh]", "container");

  // From outside, while the unit runs: no command line holds the token or the key; once the agent
  // has asked, its containers are inspected and the agent let go.
  CmdlineScanner scanner({"awrun-", kAnthropicKey});
  std::atomic<bool> done{false};
  std::vector<std::string> hits;
  Inspected seen;
  std::thread watch([&] {
    while (!done) {
      for (auto& h : scanner.pass()) hits.push_back(h);
      if (!seen.unit.empty()) continue;
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(root + "/state/runs", ec)) {
        std::string outputs = e.path().string() + "/work/.away/outputs";
        if (!exists(outputs + "/asked")) continue;
        seen = inspect_unit(*engine, e.path().filename().string());
        std::ofstream(outputs + "/go") << "go\n";
      }
    }
  });
  auto r = run_unit("Ask the model and keep its answer.");
  done = true;
  watch.join();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  for (const auto& h : hits) ADD_FAILURE() << "the run token or key on a command line: " << h;
  const auto& u = r.record;
  EXPECT_EQ(u["sandbox"], std::string("sandboxed: container docker ") + kImage + ", network none");
  std::string run_dir = u["run_dir"];

  // The answer came back through the proxy; the upstream was not reachable directly.
  std::string patch = read(run_dir + "/patch.diff");
  EXPECT_NE(patch.find("Fake title"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+refused"), std::string::npos) << patch;
  EXPECT_EQ(patch.find("+reached"), std::string::npos) << patch;
  expect_fake_saw_only_the_real_key("x-api-key", kAnthropicKey, 1);
  EXPECT_NE(read(run_dir + "/inference.log").find("\"status\":200"), std::string::npos);
  std::string notes = u["notes"].dump();
  EXPECT_NE(notes.find("1 request(s) forwarded"), std::string::npos) << notes;

  // Seen from outside while the agent ran: its container and the bridge. The token is in the
  // agent container's env (by name: the engine fills the value in), on no command; the socket is
  // mounted into the bridge only.
  ASSERT_EQ(seen.unit, u["id"].get<std::string>()) << "the agent was never seen asking";
  std::string agent = "aw-" + seen.unit + "-0", bridge = "aw-" + seen.unit + "-bridge";
  ASSERT_EQ(seen.argv.size(), 2u);
  ASSERT_TRUE(seen.argv.count(agent) && seen.argv.count(bridge));
  EXPECT_NE(seen.argv[agent].find("tools/agent.sh"), std::string::npos) << seen.argv[agent];
  for (const auto& [name, argv] : seen.argv)
    EXPECT_EQ(argv.find("awrun-"), std::string::npos) << name;
  EXPECT_NE(seen.env[agent].find("\"AWAYWORK_RUN_TOKEN=awrun-"), std::string::npos);
  EXPECT_NE(seen.env[agent].find("\"AWAYWORK_INFERENCE_URL=http://127.0.0.1:4180\""),
            std::string::npos);
  EXPECT_EQ(seen.env[bridge].find("awrun-"), std::string::npos);
  EXPECT_EQ(seen.mounts[agent].find("inference.sock"), std::string::npos) << seen.mounts[agent];
  EXPECT_NE(seen.mounts[bridge].find(run_dir + "/inference.sock"), std::string::npos)
      << seen.mounts[bridge];

  // Nothing recorded holds the key or the token; the unit's containers are gone.
  std::string rec = recorded(run_dir);
  EXPECT_EQ(rec.find(kAnthropicKey), std::string::npos);
  EXPECT_EQ(rec.find("awrun-"), std::string::npos) << "the run token in the record";
  auto left = containers_of_unit(*engine, seen.unit);
  ASSERT_TRUE(left) << left.error().message;
  EXPECT_TRUE(left->empty());
}

}  // namespace
}  // namespace aw::test

namespace aw::test {
namespace {

// isolation container, claude: the managed settings awaywork writes are bound read-only at
// /etc/claude-code inside the agent's container, and a plugin folder at its own path is readable
// and not writable. The probe runs in claude's place (its argv carries the flags claude gets) and
// leaves what it found in the clone, so the patch shows it.
TEST_F(Inference, ContainerAgentSeesTheManagedSettingsAndPluginReadOnly) {
  REQUIRE_ENGINE(engine);
  start_fake("fake_anthropic.py");
  store_secret("MODEL_KEY", kAnthropicKey);
  std::string plugin = root + "/plugins/awaytest";
  std::filesystem::create_directories(plugin + "/skills/hello");
  std::ofstream(plugin + "/skills/hello/SKILL.md") << "---\nname: hello\n---\nSay hello.\n";
  ::chmod(root.c_str(), 0755);  // the container runs as the owner; the plugin's parents readable
  commit({{"tools/probe.sh",
           "set +e\n"
           "m=/etc/claude-code/managed-settings.json\n"
           "{ echo \"args: $*\"\n"
           "  echo x > $m && echo managed-written || echo managed-denied\n"
           "  rm -f $m && echo managed-removed || echo managed-kept\n"
           "  cat $m\n"
           "  echo x > " +
               plugin + "/planted && echo plugin-written || echo plugin-denied\n" + "  cat " +
               plugin + "/skills/hello/SKILL.md\n} > probe.txt 2>&1\n"}});
  std::ofstream(config) << "state_dir: " << root << "/state\n"
                        << "isolation: container\ncontainer_engine: docker\n"
                        << "agent: model\n"
                        << "agents:\n  model:\n    provider: claude\n"
                        << "    inference: upstream\n"
                        << "    command: [bash, tools/probe.sh]\n"
                        << "    plugins: [" << plugin << "]\n"
                        << "inference:\n  upstream:\n    api: anthropic\n"
                        << "    url: https://localhost:" << fake_.port() << "\n"
                        << "    credential: MODEL_KEY\n"
                        << "    ca_file: " << root << "/cert.pem\n"
                        << "repos:\n  src:\n    path: " << src << "\n"
                        << "    image: " << kImage << "\n";
  auto r = run_unit("Probe the managed settings.");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.record["sandbox"].get<std::string>().rfind("sandboxed: container docker", 0), 0u)
      << r.record["sandbox"];
  std::string run_dir = r.record["run_dir"];
  std::string patch = read(run_dir + "/patch.diff");
  EXPECT_NE(patch.find("--setting-sources user --strict-mcp-config --plugin-dir " + plugin),
            std::string::npos)
      << patch;
  EXPECT_NE(patch.find("+managed-denied"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+managed-kept"), std::string::npos) << patch;
  EXPECT_NE(patch.find("\"allowManagedHooksOnly\": true"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+plugin-denied"), std::string::npos) << patch;
  EXPECT_NE(patch.find("+Say hello."), std::string::npos) << patch;
  EXPECT_FALSE(exists(plugin + "/planted"));
}

}  // namespace
}  // namespace aw::test
