// A built-in provider's CLI without a login for the unit (its HOME is fresh, so the owner's own
// login is not seen) fails before any phase, naming what is missing and each way to give it; with
// one (its own variable in a profile, an `inference:` upstream) it runs. A phase that fails with an
// error event has that event's text, redacted, in the unit's reason.
#include <gtest/gtest.h>

#include <string>

#include "unit_fixture.h"

namespace aw::test {
namespace {

// Shaped like a Claude Code OAuth token (`claude setup-token`); valid nowhere.
const std::string kOauth = "sk-ant-oat01-" + std::string(80, 'F') + "AA";
const std::string kPlain = "correct-horse-battery-staple-4711";

class ProviderLogin : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
  }
  // An agent of provider P whose program (a script standing in for the CLI) leaves a mark.
  void world(const std::string& provider, const std::string& extra, const std::string& body = "") {
    std::string agent = agent_script(
        "cli", "echo ran > \"$AWAYWORK_OUTPUTS/ran\"\n" + (body.empty() ? "exit 0\n" : body));
    write_config(agent, "", "    provider: " + provider + "\n" + extra + "sandbox: {mode: off}\n");
  }
};

TEST_F(ProviderLogin, ClaudeWithoutLoginFailsBeforeAnyPhaseNamingEachWay) {
  world("claude", "");
  auto r = run_unit("edit", {"--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.record["state"], "failed") << r.out;
  std::string reason = r.record.value("reason", "");
  EXPECT_NE(reason.find("agent test (provider claude) has no login"), std::string::npos) << reason;
  EXPECT_NE(reason.find("CLAUDE_CODE_OAUTH_TOKEN"), std::string::npos) << reason;
  EXPECT_NE(reason.find("`agents.test.inference: NAME`"), std::string::npos) << reason;
  EXPECT_NE(reason.find("awaywork secret set CLAUDE_CODE_OAUTH_TOKEN"), std::string::npos)
      << reason;
  EXPECT_TRUE(r.record["phases"].empty()) << r.out;
}

TEST_F(ProviderLogin, EachProviderNamesItsOwnVariable) {
  for (auto [provider, var] : {std::pair{"codex", "OPENAI_API_KEY"},
                               {"cursor", "CURSOR_API_KEY"},
                               {"gemini", "GEMINI_API_KEY"},
                               {"opencode", "ANTHROPIC_API_KEY"}}) {
    world(provider, "");
    auto r = run_unit("edit", {"--json"});
    EXPECT_EQ(r.record["state"], "failed") << provider << r.out;
    std::string reason = r.record.value("reason", "");
    EXPECT_NE(reason.find(var), std::string::npos) << provider << ": " << reason;
    EXPECT_TRUE(r.record["phases"].empty()) << provider << r.out;
    // cursor-agent has no base URL setting: an inference upstream is no way for it.
    EXPECT_EQ(reason.find("inference:") == std::string::npos, std::string(provider) == "cursor")
        << provider << ": " << reason;
    EXPECT_EQ(reason.find("lend_login") != std::string::npos, std::string(provider) == "codex")
        << provider << ": " << reason;
  }
}

TEST_F(ProviderLogin, TheCliOwnVariableInAProfileIsALogin) {
  use_test_secret_store();
  store_secret("CLAUDE_CODE_OAUTH_TOKEN", kOauth);
  world("claude",
        "    profile: login\nprofiles:\n  login:\n    secrets: [CLAUDE_CODE_OAUTH_TOKEN]\n");
  auto r = run_unit("edit", {"--json"});
  EXPECT_EQ(r.record["state"], "done") << r.out << r.err;
  ASSERT_EQ(r.record["phases"].size(), 1u) << r.out;
  EXPECT_EQ(r.record["phases"][0]["name"], "agent") << r.out;
}

TEST_F(ProviderLogin, AnOwnerVariableHandedToTheAgentIsALogin) {
  world("gemini", "    env: [GEMINI_API_KEY]\n");
  auto r = run_unit("edit", {"--json"}, {"GEMINI_API_KEY=AIzaFAKEfakeFAKEfakeFAKEfakeFAKEfake12"});
  EXPECT_EQ(r.record["state"], "done") << r.out << r.err;
  // Named but not set in the owner's environment: no login.
  auto unset = run_unit("edit", {"--json"}, {"GEMINI_API_KEY="});
  EXPECT_EQ(unset.record["state"], "failed") << unset.out;
}

TEST_F(ProviderLogin, ACommandAgentNeedsNoLogin) {
  world("command", "");
  auto r = run_unit("edit", {"--json"});
  EXPECT_EQ(r.record["state"], "done") << r.out << r.err;
}

// The CLI reports its failure as a stream-json result; its words reach the reason, redacted of the
// unit's secrets (here one the CLI echoes back in its error).
TEST_F(ProviderLogin, AFailedPhaseReasonCarriesTheErrorEventRedacted) {
  use_test_secret_store();
  store_secret("CLAUDE_CODE_OAUTH_TOKEN", kOauth);
  store_secret("PLAIN_SECRET", kPlain);
  world("claude",
        "    profile: login\nprofiles:\n  login:\n    secrets: [CLAUDE_CODE_OAUTH_TOKEN, "
        "PLAIN_SECRET]\n",
        "printf '%s\\n' '{\"type\":\"system\",\"subtype\":\"init\"}'\n"
        "printf '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
        "\"result\":\"Not logged in (token %s) · Please run /login\"}\\n' \"$PLAIN_SECRET\"\n"
        "exit 1\n");
  auto r = run_unit("edit", {"--json"});
  EXPECT_EQ(r.record["state"], "failed") << r.out << r.err;
  std::string reason = r.record.value("reason", "");
  EXPECT_NE(reason.find("agent phase failed: exit 1"), std::string::npos) << reason;
  EXPECT_NE(reason.find("the agent said: Not logged in (token "), std::string::npos) << reason;
  EXPECT_NE(reason.find("Please run /login"), std::string::npos) << reason;
  EXPECT_EQ(reason.find(kPlain), std::string::npos) << reason;
  EXPECT_EQ(r.out.find(kPlain), std::string::npos) << r.out;
}

TEST_F(ProviderLogin, AFailedPhaseWithoutAnErrorEventKeepsThePlainReason) {
  world("command", "", "echo just text\nexit 3\n");
  auto r = run_unit("edit", {"--json"});
  std::string reason = r.record.value("reason", "");
  EXPECT_NE(reason.find("agent phase failed: exit 3"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("the agent said"), std::string::npos) << reason;
}

}  // namespace
}  // namespace aw::test
