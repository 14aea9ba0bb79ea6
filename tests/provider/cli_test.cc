// The REAL agent CLIs (installed by scripts/agent-clis) started exactly as provider_launch says,
// in a temp git repo, against the fake vendor APIs of tests/fakes over plain http on loopback.
// They prove the fakes are faithful enough for the real CLIs to edit a file, and that the launch
// env/argv route each CLI to the given base URL with the given key.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "fake_server.h"
#include "proc/capture.h"
#include "provider/doctor.h"
#include "provider/events.h"
#include "provider/provider.h"

namespace aw {
namespace {

// Fake keys shaped like real ones; never valid anywhere.
const std::string kFakeAnthropicKey =
    "sk-ant-api03-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake"
    "FAKEfakeFAKE-FAKEfaAA";
const std::string kFakeOpenaiKey =
    "sk-proj-FAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfake";
const std::string kPrompt = "Write the file AWAYWORK_FAKE_EDIT.txt, then say you are done.\n";

std::string clis_bin() {
  const char* env = ::getenv("AWAYWORK_AGENT_CLIS_BIN");
  return env && *env ? env : kAgentClisBin;
}

bool on_ci() {
  const char* ci = ::getenv("CI");
  return ci && std::string(ci) == "true";
}

#define REQUIRE_CLI(name)                                                             \
  do {                                                                                \
    if (::access((clis_bin() + "/" name).c_str(), X_OK) != 0) {                       \
      if (on_ci())                                                                    \
        FAIL() << name " is not in " << clis_bin()                                    \
               << " (CI=true: no skip); run scripts/agent-clis";                      \
      GTEST_SKIP() << name " is not in " << clis_bin() << "; run scripts/agent-clis"; \
    }                                                                                 \
  } while (0)

Captured run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::string& cwd, const std::string& in = "") {
  return test::run_captured(argv, env, cwd, in);
}

std::vector<nlohmann::json> requests(const std::string& log) {
  return test::logged_requests(log);
}

class RealCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-provider-cli-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    repo_ = dir_ + "/repo";
    home_ = dir_ + "/home";
    ASSERT_TRUE(make_dirs(repo_));
    ASSERT_TRUE(make_dirs(home_));
    std::vector<std::string> git_env = {"PATH=/usr/bin:/bin", "HOME=" + home_,
                                        "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"};
    ASSERT_EQ(run({"git", "init", "-q"}, git_env, repo_).exit_code, 0);
    ASSERT_TRUE(write_file(repo_ + "/README.md", "a repo\n", 0644));
    ASSERT_EQ(run({"git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "."}, git_env, repo_)
                  .exit_code,
              0);
    ASSERT_EQ(run({"git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"},
                  git_env, repo_)
                  .exit_code,
              0);
    git_env_ = git_env;
  }
  void TearDown() override {
    fake_.stop();
    (void)remove_tree(dir_);
  }

  // Runs the provider's CLI as a unit would: provider_launch's env and argv on a clean env.
  Captured run_agent(const std::string& provider, const std::string& key) {
    auto launch = provider_launch(*find_provider(provider), {}, fake_.url(), key, home_);
    EXPECT_TRUE(launch) << (launch ? "" : launch.error().message);
    if (!launch) return {};
    for (const auto& d : launch->state_dirs) EXPECT_TRUE(make_dirs(d, 0700));
    for (const auto& [path, content] : launch->files) EXPECT_TRUE(write_file(path, content));
    std::vector<std::string> env = {"PATH=" + clis_bin() + ":/usr/bin:/bin", "HOME=" + home_,
                                    "LANG=C.UTF-8", "TMPDIR=" + dir_};
    for (const auto& [k, v] : launch->env) env.push_back(k + "=" + v);
    std::vector<std::string> argv = {"/usr/bin/timeout", "300"};
    argv.insert(argv.end(), launch->argv.begin(), launch->argv.end());
    return run(argv, env, repo_, kPrompt);
  }

  std::string git_status() { return run({"git", "status", "--porcelain"}, git_env_, repo_).out; }

  std::string dir_, repo_, home_;
  std::vector<std::string> git_env_;
  test::FakeServer fake_;
};

TEST_F(RealCli, ClaudeWritesTheFileTheFakeAnthropicApiAskedFor) {
  REQUIRE_CLI("claude");
  std::string log = dir_ + "/anthropic.jsonl";
  ASSERT_TRUE(fake_.start("fake_anthropic.py", log));
  Captured out = run_agent("claude", kFakeAnthropicKey);
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;

  auto written = read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt");
  ASSERT_TRUE(written) << "the edit did not land; stdout:\n" << out.out;
  EXPECT_EQ(*written, "written by the fake model\n");
  EXPECT_NE(git_status().find("?? AWAYWORK_FAKE_EDIT.txt"), std::string::npos);

  auto events = parse_events("claude", out.out);
  bool wrote = false, done = false, usage = false;
  for (const auto& e : events) {
    wrote |= e.kind == TranscriptEvent::Kind::tool_call && e.tool == "Write";
    done |= e.kind == TranscriptEvent::Kind::message && e.text == "Done: I wrote the file.";
    usage |= e.kind == TranscriptEvent::Kind::usage && e.output_tokens > 0;
  }
  EXPECT_TRUE(wrote && done && usage) << out.out;

  auto reqs = requests(log);
  int turns = 0;
  for (const auto& r : reqs) {
    EXPECT_EQ(r["headers"].value("x-api-key", ""), kFakeAnthropicKey) << r["path"];
    EXPECT_FALSE(r["headers"].contains("authorization")) << r["path"];
    if (r["path"].get<std::string>().starts_with("/v1/messages")) ++turns;
  }
  EXPECT_GE(turns, 2);  // the tool_use turn and the final turn
  EXPECT_EQ(out.out.find(kFakeAnthropicKey), std::string::npos);  // stdout never echoes the key
}

TEST_F(RealCli, CodexAppliesThePatchTheFakeResponsesApiAskedFor) {
  REQUIRE_CLI("codex");
  std::string log = dir_ + "/openai.jsonl";
  ASSERT_TRUE(fake_.start("fake_openai.py", log));
  Captured out = run_agent("codex", kFakeOpenaiKey);
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;

  auto written = read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt");
  ASSERT_TRUE(written) << "the edit did not land; stdout:\n" << out.out << out.err;
  EXPECT_EQ(*written, "written by the fake model\n");
  EXPECT_NE(git_status().find("?? AWAYWORK_FAKE_EDIT.txt"), std::string::npos);

  auto events = parse_events("codex", out.out);
  bool changed = false, done = false, usage = false;
  for (const auto& e : events) {
    changed |= e.kind == TranscriptEvent::Kind::tool_call && e.tool == "file_change" &&
               e.text == "add " + repo_ + "/AWAYWORK_FAKE_EDIT.txt";
    done |= e.kind == TranscriptEvent::Kind::message && e.text == "Done: I wrote the file.";
    usage |= e.kind == TranscriptEvent::Kind::usage && e.output_tokens > 0;
  }
  EXPECT_TRUE(changed && done && usage) << out.out;

  auto reqs = requests(log);
  ASSERT_GE(reqs.size(), 2u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r["path"], "/v1/responses");  // the -c model_providers base_url was honoured
    EXPECT_EQ(r["headers"].value("authorization", ""), "Bearer " + kFakeOpenaiKey);
  }
}

TEST_F(RealCli, CodexRunsAShellCommandTheFakeAskedFor) {
  REQUIRE_CLI("codex");
  std::string log = dir_ + "/openai.jsonl";
  ASSERT_TRUE(fake_.start("fake_openai.py", log, {"--tool", "shell"}));
  Captured out = run_agent("codex", kFakeOpenaiKey);
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  auto written = read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt");
  ASSERT_TRUE(written) << out.out;
  EXPECT_EQ(*written, "written by the fake model\n");
  bool ran = false;
  for (const auto& e : parse_events("codex", out.out))
    ran |= e.kind == TranscriptEvent::Kind::tool_result && e.tool == "command" &&
           e.text.starts_with("exit 0");
  EXPECT_TRUE(ran) << out.out;
}

TEST_F(RealCli, ARefusedKeyEndsTheCodexRunWithErrorEvents) {
  REQUIRE_CLI("codex");
  std::string log = dir_ + "/openai.jsonl";
  ASSERT_TRUE(fake_.start("fake_openai.py", log, {"--error-status", "401"}));
  Captured out = run_agent("codex", kFakeOpenaiKey);
  EXPECT_NE(out.exit_code, 0);
  EXPECT_FALSE(read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt"));
  auto events = parse_events("codex", out.out);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, TranscriptEvent::Kind::error);
  EXPECT_NE(events.back().text.find("401"), std::string::npos);
}

// Gemini CLI through GOOGLE_GEMINI_BASE_URL plus the settings.json provider_launch writes.
TEST_F(RealCli, GeminiWritesTheFileTheFakeGeminiApiAskedFor) {
  REQUIRE_CLI("gemini");
  std::string log = dir_ + "/gemini.jsonl";
  ASSERT_TRUE(fake_.start("fake_gemini.py", log));
  const std::string key = "AIzaFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAK";
  Captured out = run_agent("gemini", key);
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  auto written = read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt");
  ASSERT_TRUE(written) << out.out << out.err;
  EXPECT_EQ(*written, "written by the fake model\n");
  bool wrote = false, done = false;
  for (const auto& e : parse_events("gemini", out.out)) {
    wrote |= e.kind == TranscriptEvent::Kind::tool_call && e.tool == "write_file";
    done |= e.kind == TranscriptEvent::Kind::message && e.text == "Done: I wrote the file.";
  }
  EXPECT_TRUE(wrote && done) << out.out;
  for (const auto& r : requests(log))
    EXPECT_EQ(r["headers"].value("x-goog-api-key", ""), key) << r["path"];
}

// opencode through the anthropic provider's baseURL in OPENCODE_CONFIG_CONTENT.
TEST_F(RealCli, OpencodeWritesTheFileTheFakeAnthropicApiAskedFor) {
  REQUIRE_CLI("opencode");
  std::string log = dir_ + "/anthropic.jsonl";
  ASSERT_TRUE(fake_.start("fake_anthropic.py", log));
  Captured out = run_agent("opencode", kFakeAnthropicKey);
  ASSERT_EQ(out.exit_code, 0) << out.err << out.out;
  auto written = read_file(repo_ + "/AWAYWORK_FAKE_EDIT.txt");
  ASSERT_TRUE(written) << out.out << out.err;
  EXPECT_EQ(*written, "written by the fake model\n");
  bool wrote = false, done = false;
  for (const auto& e : parse_events("opencode", out.out)) {
    wrote |= e.kind == TranscriptEvent::Kind::tool_call && e.tool == "write";
    done |= e.kind == TranscriptEvent::Kind::message && e.text == "Done: I wrote the file.";
  }
  EXPECT_TRUE(wrote && done) << out.out;
  auto reqs = requests(log);
  ASSERT_GE(reqs.size(), 2u);
  for (const auto& r : reqs)
    EXPECT_EQ(r["headers"].value("x-api-key", ""), kFakeAnthropicKey) << r["path"];
}

TEST_F(RealCli, DoctorFindsThePinnedClisAndTheirVersions) {
  REQUIRE_CLI("claude");
  REQUIRE_CLI("codex");
  auto checks = agent_cli_checks(clis_bin() + ":/usr/bin:/bin", {"claude", "codex"});
  std::string all;
  for (const auto& c : checks) all += c.name + ": " + c.detail + "\n";
  EXPECT_NE(all.find("2.1.332 (Claude Code)"), std::string::npos) << all;
  EXPECT_NE(all.find("codex-cli 0.171.0"), std::string::npos) << all;
  for (const auto& c : checks) EXPECT_TRUE(c.ok) << c.name << ": " << c.detail;
}

}  // namespace
}  // namespace aw
