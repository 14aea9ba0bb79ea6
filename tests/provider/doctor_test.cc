// agent_cli_checks: real programs on a PATH made for the test.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>

#include "base/fs.h"
#include "provider/doctor.h"

namespace aw {
namespace {

class AgentCliDoctor : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/aw-provider-doctor-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { (void)remove_tree(dir_); }
  void script(const std::string& name, const std::string& body) {
    ASSERT_TRUE(write_file(dir_ + "/" + name, "#!/bin/sh\n" + body + "\n", 0755));
  }
  const Check* find(const std::vector<Check>& cs, const std::string& needle) {
    auto it = std::find_if(cs.begin(), cs.end(), [&](const Check& c) {
      return c.name.find(needle) != std::string::npos;
    });
    return it == cs.end() ? nullptr : &*it;
  }
  std::string path() const { return dir_ + ":/usr/bin:/bin"; }
  std::string dir_;
};

TEST_F(AgentCliDoctor, ReportsTheVersionAndPlaceOfAnInstalledCli) {
  script("claude", "echo '2.1.332 (Claude Code)'");
  auto checks = agent_cli_checks(path(), {"claude"});
  const Check* c = find(checks, "(claude)");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->ok);
  EXPECT_NE(c->detail.find("2.1.332 (Claude Code)"), std::string::npos) << c->detail;
  EXPECT_NE(c->detail.find(dir_ + "/claude"), std::string::npos) << c->detail;
}

TEST_F(AgentCliDoctor, AMissingRequiredCliFailsWithAFixAndAnOptionalOneDoesNot) {
  auto checks = agent_cli_checks(dir_, {"codex"});
  const Check* codex = find(checks, "(codex)");
  ASSERT_NE(codex, nullptr);
  EXPECT_FALSE(codex->ok);
  EXPECT_NE(codex->fix.find("scripts/agent-clis"), std::string::npos);
  const Check* gemini = find(checks, "(gemini)");
  ASSERT_NE(gemini, nullptr);
  EXPECT_TRUE(gemini->ok);
  EXPECT_EQ(gemini->detail, "not installed");
  EXPECT_EQ(find(checks, "(command)"), nullptr);  // nothing to look for
}

TEST_F(AgentCliDoctor, ACliWhoseVersionFailsIsReportedWithItsError) {
  script("codex", "echo 'error while loading shared libraries' >&2; exit 127");
  auto checks = agent_cli_checks(path(), {"codex"});
  const Check* c = find(checks, "(codex)");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok);
  EXPECT_NE(c->detail.find("shared libraries"), std::string::npos) << c->detail;
}

}  // namespace
}  // namespace aw
