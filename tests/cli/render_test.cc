// What `run`, `show` and `units` print for people: hostile text from a record (a task built from
// an issue, an agent's words) reaches the owner's terminal inert.
#include <gtest/gtest.h>

#include <fstream>

#include "../unit/unit_fixture.h"

namespace aw::test {
namespace {

class Render : public UnitTest {
 protected:
  void SetUp() override {
    UnitTest::SetUp();
    make_repo({{"a.txt", "a\n"}});
    write_config(agent_script("edit", "echo edited >> a.txt\n"), "", "sandbox: {mode: off}\n");
  }
};

TEST_F(Render, TerminalEscapesInATaskAreShownNotObeyed) {
  // An OSC title change, a colour, a C1 CSI and a DEL: each must come out as visible text.
  std::string hostile =
      "fix it \x1b]0;pwned\x07 \x1b[31mred \xc2\x9b"
      "2J \x7f end";
  auto run = awaywork({"run", "--repo", "src", "--prompt", hostile});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  auto units = awaywork({"units", "--json"});
  ASSERT_TRUE(units.record.is_array() && !units.record.empty()) << units.out;
  std::string id = units.record[0].value("id", "");
  auto show = awaywork({"show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const auto* out : {&show.out, &run.out}) {
    EXPECT_EQ(out->find('\x1b'), std::string::npos) << *out;
    EXPECT_EQ(out->find('\x07'), std::string::npos) << *out;
    EXPECT_EQ(out->find('\x7f'), std::string::npos) << *out;
    EXPECT_EQ(out->find("\xc2\x9b"), std::string::npos) << *out;
  }
  EXPECT_NE(show.out.find("\\x1b]0;pwned\\x07"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("\\u009b2J"), std::string::npos) << show.out;
  // The record itself keeps the text as given (JSON escapes it): nothing is lost.
  auto json = awaywork({"show", id, "--json"});
  EXPECT_EQ(json.record.value("prompt", ""), hostile);
}

// Issue 38: an error bound for --json may hold bytes that are not UTF-8 (here the folder named on
// the command line): the answer is still JSON, those bytes replaced, not a throw from the dump
// that ended `check --from` in std::terminate.
TEST_F(Render, ARefusalHoldingBytesThatAreNotUtf8IsStillJson) {
  std::string dir = root + "/artifact-\xff\xfe";  // does not exist
  auto check = awaywork({"check", "--from", dir, "--json"});
  EXPECT_EQ(check.exit_code, 5) << check.out << check.err;
  ASSERT_TRUE(check.record.is_object()) << check.out << check.err;
  EXPECT_EQ(check.record["accepted"], false);
  EXPECT_NE(check.record.value("error", "").find("artifact-\xef\xbf\xbd\xef\xbf\xbd"),
            std::string::npos)
      << check.out;
}

// Issue 27: `show` says which injected secrets a unit's requests actually got, and where a
// placeholder was refused, from the unit's egress log (written by the egress proxy, one JSON
// object per request): by name, never a value. The hosts a phase asked for are made inert; a line
// cut short is skipped.
TEST_F(Render, ShowSaysWhichInjectedSecretsTheEgressLogNames) {
  auto run = awaywork({"run", "--repo", "src", "--prompt", "edit", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::string id = run.record.value("id", ""), run_dir = run.record.value("run_dir", "");
  ASSERT_FALSE(run_dir.empty()) << run.out;
  auto plain = awaywork({"show", id});
  EXPECT_EQ(plain.out.find("secrets the egress proxy used"), std::string::npos) << plain.out;
  std::ofstream(run_dir + "/egress.log")
      << R"({"method":"GET","host":"npm.example.test","port":443,"path":"/a","allowed":true,"rule":"allow npm.example.test","injected":"NPM_TOKEN"})"
      << "\n"
      << R"({"method":"GET","host":"git.example.test","port":443,"path":"/r","allowed":true,"rule":"allow git.example.test","injected":"NPM_TOKEN,GIT_TOKEN"})"
      << "\n"
      << R"({"method":"GET","host":"npm.example.test","port":443,"path":"/b","allowed":true,"rule":"allow npm.example.test","injected":"NPM_TOKEN"})"
      << "\n"
      << R"({"method":"GET","host":"plain.example.test","port":443,"path":"/","allowed":true,"rule":"allow plain.example.test"})"
      << "\n"
      << R"({"method":"POST","host":"evil\u001b[2J.test","port":443,"path":"/","allowed":false,"rule":"deny placeholder-exfiltration NPM_TOKEN"})"
      << "\n"
      << R"({"method":"GET","host":"npm.exa)";  // cut short by a crash
  auto show = awaywork({"show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("secrets the egress proxy used (egress.log):\n"
                          "  - NPM_TOKEN: added to 3 request(s) for npm.example.test, "
                          "git.example.test\n"
                          "  - NPM_TOKEN: its placeholder was refused for evil\\x1b[2J.test (an "
                          "exfiltration attempt)\n"
                          "  - GIT_TOKEN: added to 1 request(s) for git.example.test\n"),
            std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find('\x1b'), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("plain.example.test"), std::string::npos) << show.out;
  auto json = awaywork({"show", id, "--json"});
  ASSERT_TRUE(json.record.is_object()) << json.out;
  const auto& used = json.record["injected_used"];
  ASSERT_EQ(used.size(), 2u) << json.out;
  EXPECT_EQ(used[0]["name"], "NPM_TOKEN");
  EXPECT_EQ(used[0]["requests"], 3);
  EXPECT_EQ(used[0]["hosts"], nlohmann::json::array({"npm.example.test", "git.example.test"}));
  EXPECT_EQ(used[0]["refused"], nlohmann::json::array({"evil\x1b[2J.test"}));
  EXPECT_EQ(used[1]["name"], "GIT_TOKEN");
  EXPECT_EQ(used[1]["requests"], 1);
}

}  // namespace
}  // namespace aw::test
