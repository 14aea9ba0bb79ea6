// The real agent CLIs as a unit's agent, end to end: in the default sandbox (network none), through
// awaywork's inference proxy (bridged onto 127.0.0.1:4180 inside), against the fake vendor APIs of
// tests/fakes served over TLS with a certificate made here (a separate test server: a fake, since
// no model API exists offline). The real key lives in the secret store and reaches only the fake;
// the agent sees a run token, which is revoked when the unit ends.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "fake_server.h"
#include "proc/capture.h"
#include "provider/doctor.h"
#include "unit_fixture.h"

namespace aw::test {
namespace {

// Fake keys shaped like real ones; valid nowhere (kAnthropicKey: unit_fixture.h).
const std::string kOpenaiKey =
    "sk-proj-FAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEkeyFAKEk";
// What the fake model "leaks" in its final message: the transcript must show it redacted.
const std::string kLeaked = "ghp_FAKEleakedFAKEleakedFAKEleakedFAKE12";

std::string clis_bin() {
  const char* env = ::getenv("AWAYWORK_AGENT_CLIS_BIN");
  return env && *env ? env : kAgentClisBin;
}

#define REQUIRE_CLI(name)                                                             \
  do {                                                                                \
    if (::access((clis_bin() + "/" name).c_str(), X_OK) != 0) {                       \
      const char* ci = ::getenv("CI");                                                \
      if (ci && std::string(ci) == "true")                                            \
        FAIL() << name " is not in " << clis_bin()                                    \
               << " (CI=true: no skip); run scripts/agent-clis";                      \
      GTEST_SKIP() << name " is not in " << clis_bin() << "; run scripts/agent-clis"; \
    }                                                                                 \
  } while (0)

class Inference : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    use_test_secret_store();
    const char* path = std::getenv("PATH");
    saved_path_ = path ? path : "/usr/bin:/bin";
    ::setenv("PATH", (clis_bin() + ":" + saved_path_).c_str(), 1);
    // The fake's certificate, trusted by the proxy through `ca_file` only.
    ASSERT_NO_FATAL_FAILURE(make_tls_certificate(root));
    make_repo({{"README.md", "a repo\n"}});
  }
  void TearDown() override {
    fake_.stop();
    ::setenv("PATH", saved_path_.c_str(), 1);
    UnitTest::TearDown();
  }

  void start_fake(const std::string& script) {
    fake_log_ = root + "/fake.jsonl";
    ASSERT_TRUE(fake_.start(script, fake_log_,
                            {"--tls", root + "/cert.pem", root + "/key.pem", "--final",
                             "Done: I wrote the file. " + kLeaked}));
  }

  // agents.NAME runs PROVIDER through the proxy to `upstream` (api), its key in SECRET.
  void write_inference_config(const std::string& provider, const std::string& api,
                              const std::string& command = "") {
    std::ofstream(config) << "state_dir: " << root << "/state\n"
                          << "agent: model\n"
                          << "agents:\n  model:\n    provider: " << provider << "\n"
                          << "    inference: upstream\n"
                          << (command.empty() ? "" : "    command: " + command + "\n")
                          << "inference:\n  upstream:\n    api: " << api << "\n"
                          << "    url: https://localhost:" << fake_.port() << "\n"
                          << "    credential: MODEL_KEY\n"
                          << "    ca_file: " << root << "/cert.pem\n"
                          << "repos:\n  src:\n    path: " << src << "\n";
  }

  // The unit's files that a reader of the record sees.
  std::string recorded(const std::string& run_dir) {
    return read(run_dir + "/transcript.log") + read(run_dir + "/events.json") +
           read(run_dir + "/summary.json") + read(run_dir + "/patch.diff");
  }

  void expect_fake_saw_only_the_real_key(const std::string& header, const std::string& want) {
    auto reqs = log_lines(read(fake_log_));
    ASSERT_GE(reqs.size(), 2u) << read(fake_log_);
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

  std::string saved_path_, fake_log_;
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

}  // namespace
}  // namespace aw::test
