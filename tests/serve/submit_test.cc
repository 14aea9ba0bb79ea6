// parse_submit and run_args: the body of POST /api/v1/units and the run command it becomes.
#include "serve/submit.h"

#include <gtest/gtest.h>

namespace aw {
namespace {

Config config() {
  Config c;
  c.agents["claude"] = {};
  c.profiles["ci"] = {};
  return c;
}

TEST(Submit, AFullBodyBecomesARunCommandWithKeyEqualsValue) {
  auto r = parse_submit(
      R"({"repo":"-web","prompt":"fix it","agent":"claude","profile":"ci","base":"main",)"
      R"("unit_seconds":60})",
      config());
  ASSERT_TRUE(r) << r.error().message;
  auto a = run_args(*r, "/s/p.txt");
  std::vector<std::string> want = {
      "run",          "--repo=-web", "--prompt-file=/s/p.txt", "--agent=claude",
      "--profile=ci", "--base=main", "--unit-seconds=60",      "--json"};
  EXPECT_EQ(a, want);
}

TEST(Submit, EachBadFieldIsNamed) {
  auto err = [](const std::string& body) {
    auto r = parse_submit(body, config());
    return r ? std::string("accepted") : r.error().message;
  };
  EXPECT_NE(err("[]").find("JSON object"), std::string::npos);
  EXPECT_NE(err("{").find("JSON object"), std::string::npos);
  // Issue 25: a literal message without arguments kept its braces doubled ("like {{").
  EXPECT_EQ(err("[]"), R"(the body must be a JSON object like {"repo": "NAME", "prompt": "TASK"})");
  EXPECT_NE(err(R"({"prompt":"x"})").find("\"repo\" is required"), std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":""})").find("\"prompt\" must not be empty"),
            std::string::npos);
  EXPECT_NE(err(R"({"repo":1,"prompt":"x"})").find("\"repo\" must be a string"), std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":"x","agent":"gpt"})").find("agents: claude"),
            std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":"x","profile":"p"})").find("profiles: ci"),
            std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":"x","unit_seconds":0})").find("unit_seconds"),
            std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":"x","unit_seconds":"9"})").find("unit_seconds"),
            std::string::npos);
  EXPECT_NE(err(R"({"repo":"w","prompt":"x","extra":1})").find("unknown field \"extra\""),
            std::string::npos);
  EXPECT_NE(err(std::string(R"({"repo":"w\u0000","prompt":"x"})")).find("NUL"), std::string::npos);
}

TEST(Submit, AnIssueAloneBecomesRunIssueWithNoPromptFile) {
  auto r = parse_submit(R"({"issue":"octo/web#12","agent":"claude"})", config());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->repo.empty());
  std::vector<std::string> want = {"run", "--issue=octo/web#12", "--agent=claude", "--json"};
  EXPECT_EQ(run_args(*r, ""), want);
}

// Issue 29 item 8: a GitLab project's issue (its nested path) is taken as `run --issue` takes it,
// and a bad one's message names the gitlab: path too, not only github:.
TEST(Submit, AGitlabProjectsIssueBecomesRunIssueAndItsShapeIsNamed) {
  auto r = parse_submit(R"({"issue":"grp/sub/app#3"})", config());
  ASSERT_TRUE(r) << r.error().message;
  std::vector<std::string> want = {"run", "--issue=grp/sub/app#3", "--json"};
  EXPECT_EQ(run_args(*r, ""), want);
  auto bad = parse_submit(R"({"issue":"grp/sub/app"})", config());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("GROUP/PROJECT#N"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("gitlab:"), std::string::npos) << bad.error().message;
}

TEST(Submit, AnIssueMustBeNameHashNumberAndComeWithoutRepoOrPrompt) {
  for (const char* bad : {R"({"issue":"web"})", R"({"issue":"web#"})", R"({"issue":"#3"})",
                          R"({"issue":"web#03"})", R"({"issue":"web#1x"})",
                          R"({"issue":"w b#1"})", R"({"issue":"web#1234567890123456"})"}) {
    auto r = parse_submit(bad, config());
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("NAME#N"), std::string::npos) << r.error().message;
  }
  auto both = parse_submit(R"({"issue":"web#1","repo":"web"})", config());
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("not both"), std::string::npos);
  EXPECT_FALSE(parse_submit(R"({"issue":5})", config()));
}

}  // namespace
}  // namespace aw
