// Codex login lending end to end (agents.X.lend_login): the owner's ChatGPT login (auth.json) is
// lent to the unit's CODEX_HOME; afterwards only a genuine refresh of the same account is saved
// back; the lent tokens are redacted from the record. The agent is a script standing in for codex
// (the real codex would need ChatGPT's servers to refresh), run in the default sandbox.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "unit_fixture.h"

namespace aw::test {
namespace {

// Fake tokens; the JWT-shaped one is caught by pattern, the plain ones only as lent literals.
const std::string kAccess = "fake-access-token-0123456789abcdef";
const std::string kRefreshed = "fake-access-token-refreshed-987654";
const std::string kRefresh = "fake-refresh-token-abcdef0123456789";

std::string auth_json(const std::string& account, const std::string& access,
                      const std::string& last_refresh) {
  return nlohmann::json{{"auth_mode", "chatgpt"},
                        {"OPENAI_API_KEY", nullptr},
                        {"tokens",
                         {{"id_token", "fake-id-token-00112233445566778899"},
                          {"access_token", access},
                          {"refresh_token", kRefresh},
                          {"account_id", account}}},
                        {"last_refresh", last_refresh}}
      .dump();
}

class CodexLogin : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    const char* h = std::getenv("CODEX_HOME");
    saved_ = h ? std::optional<std::string>(h) : std::nullopt;
    owner_home_ = root + "/owner-codex";
    std::filesystem::create_directories(owner_home_);
    ::setenv("CODEX_HOME", owner_home_.c_str(), 1);  // where awaywork finds the owner's login
    owner_auth_ = owner_home_ + "/auth.json";
    std::ofstream(owner_auth_) << auth_json("acct-owner-1", kAccess, "2026-11-01T00:00:00Z");
    std::filesystem::permissions(
        owner_auth_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    make_repo({{"README.md", "a repo\n"}});
  }
  void TearDown() override {
    saved_ ? ::setenv("CODEX_HOME", saved_->c_str(), 1) : ::unsetenv("CODEX_HOME");
    UnitTest::TearDown();
  }
  // The agent prints the lent access token, then leaves `after` as the unit's auth.json.
  RunOutput run_with_agent_leaving(const std::string& after) {
    // Written by the script itself: the test's folder under /tmp is not in the sandbox's view.
    std::string agent = agent_script("codex-standin",
                                     "cat \"$CODEX_HOME/auth.json\"; echo\n"
                                     "cat > \"$CODEX_HOME/auth.json\" <<'EOF'\n" +
                                         after + "\nEOF\n");
    std::ofstream(config) << "state_dir: " << root << "/state\n"
                          << "agent: model\nagents:\n  model:\n    provider: codex\n"
                          << "    lend_login: true\n    command: [" << agent << "]\n"
                          << "repos:\n  src:\n    path: " << src << "\n";
    return run_unit("refresh the login");
  }
  std::string owner_auth_, owner_home_;
  std::optional<std::string> saved_;
};

TEST_F(CodexLogin, AGenuineRefreshOfTheSameAccountIsSavedBack) {
  std::string refreshed = auth_json("acct-owner-1", kRefreshed, "2026-11-29T10:00:00Z");
  auto r = run_with_agent_leaving(refreshed);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read(owner_auth_), refreshed + "\n");  // as the unit left it, heredoc newline too
  EXPECT_NE(r.record["notes"].dump().find("codex login: saved"), std::string::npos)
      << r.record["notes"];
  // The agent printed the lent tokens: the record has them redacted.
  std::string transcript = read(r.record["run_dir"].get<std::string>() + "/transcript.log");
  EXPECT_NE(transcript.find("acct-owner-1"), std::string::npos) << transcript;
  EXPECT_EQ(transcript.find(kAccess), std::string::npos) << transcript;
  EXPECT_EQ(transcript.find(kRefresh), std::string::npos) << transcript;
}

TEST_F(CodexLogin, AnotherAccountLeftByTheUnitIsNotSaved) {
  std::string before = read(owner_auth_);
  auto r = run_with_agent_leaving(auth_json("acct-attacker", kRefreshed, "2026-11-29T10:00:00Z"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read(owner_auth_), before);
  EXPECT_NE(r.record["notes"].dump().find("codex login: not saved"), std::string::npos)
      << r.record["notes"];
}

TEST_F(CodexLogin, AnOlderLoginLeftByTheUnitIsNotSaved) {
  std::string before = read(owner_auth_);
  auto r = run_with_agent_leaving(auth_json("acct-owner-1", kRefreshed, "2026-10-01T00:00:00Z"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(read(owner_auth_), before);
}

TEST_F(CodexLogin, AMissingOwnerLoginFailsTheUnitBeforeAnyPhase) {
  std::filesystem::remove(owner_auth_);
  auto r = run_with_agent_leaving("{}");
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(r.record["phases"].empty()) << r.out;
  EXPECT_NE(r.record["reason"].get<std::string>().find("lend the Codex login"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace aw::test
