// Requests parsing and text sanitizing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "check/bounds.h"
#include "check/check.h"
#include "check/requests.h"
#include "check/sanitize.h"
#include "check/verdict.h"

namespace aw {
namespace {

const std::vector<std::string> kGithub = {"github.com", "*.github.com"};
std::string S(std::string_view in, size_t max = 10000) {
  return sanitize_text(in, kGithub, max);
}

TEST(CheckSanitize, NormalizesToNfc) {
  EXPECT_EQ(S("cafe\xCC\x81"), "caf\xC3\xA9");
}

TEST(CheckSanitize, RemovesZeroWidthBidiAndControls) {
  EXPECT_EQ(S("a\u200Bb\u202Ec\u2066d\x01"
              "e\x7F"
              "f\u00ADg\U000E0041h"),
            "abcdefgh");
  EXPECT_EQ(S("line1\r\nline2\rline3\ttab"), "line1\nline2\nline3\ttab");
}

TEST(CheckSanitize, RemovesAnsiEscapes) {
  EXPECT_EQ(S("\x1b[31mred\x1b[0m \x1b]0;title\x07ok \x1b"
              "c"),
            "red ok ");
}

TEST(CheckSanitize, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(S("a\xFF"
              "b"),
            "a\xEF\xBF\xBD"
            "b");
}

TEST(CheckSanitize, NeutralizesMentionsButNotEmails) {
  EXPECT_EQ(S("hi @alice and @org/team-x, mail bob@example.com"),
            "hi `@alice` and `@org/team-x`, mail bob@example.com");
}

TEST(CheckSanitize, NeutralizesClosingKeywords) {
  EXPECT_EQ(S("Fixes #12. closes: #3, resolved o/r#4"),
            "`Fixes #12`. `closes: #3`, `resolved o/r#4`");
  EXPECT_EQ(S("fixes https://github.com/o/r/issues/9"), "`fixes https://github.com/o/r/issues/9`");
  EXPECT_EQ(S("a fix for #12 and prefixes #1"), "a fix for #12 and prefixes #1");
  EXPECT_EQ(S("fixes #3;@bob"), "`fixes #3`;`@bob`") << "found by fuzz_requests";
  EXPECT_EQ(S("fixes #3x"), "fixes #3x");
}

TEST(CheckSanitize, ReducesHtmlToASafeSet) {
  EXPECT_EQ(S("<b onclick=x>bold</b><!-- hidden instructions --><script>x</script>"),
            "<b>bold</b>&lt;script>x&lt;/script>");
  EXPECT_EQ(S("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)>");
  EXPECT_EQ(S("&#x202E;&rlm; &lt;ok&gt;"), "&amp;#x202E;&amp;rlm; &lt;ok&gt;");
}

TEST(CheckSanitize, RedactsLinksThatAreNotHttpsOnAllowedHosts) {
  EXPECT_EQ(S("see https://github.com/o/r/pull/1 and https://docs.github.com/x"),
            "see https://github.com/o/r/pull/1 and https://docs.github.com/x");
  EXPECT_EQ(S("http://github.com/x https://evil.com/a https://github.com.evil.com/ "
              "https://user@github.com/ [x](javascript:alert(1)) [y](//evil.com) www.evil.com"),
            "(link removed) (link removed) (link removed) (link removed) [x]((link removed)(1)) "
            "[y]((link removed)) (link removed)");
}

TEST(CheckSanitize, CapsOnACodePointBoundary) {
  std::string out = S("ééééé", 7);  // 10 bytes in; 7 allowed: 2 é (4 bytes) + … (3 bytes)
  EXPECT_EQ(out, "éé\xE2\x80\xA6");
}

TEST(CheckSanitize, IsIdempotent) {
  std::string nasty =
      "Fixes #1 @bob <i x=1>i</i> &lt; http://x.org \u202E <!--c--> <div>d</div> `@carol`";
  std::string once = S(nasty);
  EXPECT_EQ(S(once), once);
}

TEST(CheckHostAllowed, ExactAndWildcard) {
  EXPECT_TRUE(host_allowed("github.com", kGithub));
  EXPECT_TRUE(host_allowed("api.github.com", kGithub));
  EXPECT_FALSE(host_allowed("evilgithub.com", kGithub));
  EXPECT_FALSE(host_allowed("", kGithub));
}

struct Parsed {
  std::vector<Request> requests;
  std::vector<Refusal> refusals;
};

Parsed parse(std::string_view text, Bounds b = {}, RequestContext ctx = {}) {
  Parsed p;
  if (ctx.repo.empty()) ctx.repo = "o/r";
  p.requests = parse_requests(text, b, ctx, p.refusals);
  return p;
}

TEST(CheckRequests, ParsesEveryTypeWithItsFields) {
  Bounds b;
  b.allowed_labels = {"bug"};
  b.max_requests["create_issue"] = 1;
  auto p = parse(
      "{\"type\":\"create_pull_request\",\"title\":\"T\",\"body\":\"B\"}\n\n"
      "{\"type\":\"add_comment\",\"body\":\"C\"}\n"
      "{\"type\":\"add_labels\",\"labels\":[\"bug\",\"bug\"]}\n"
      "{\"type\":\"create_issue\",\"title\":\"I\",\"labels\":[\"bug\"]}\n"
      "{\"type\":\"noop\",\"message\":\"M\"}\n"
      "{\"type\":\"missing_tool\",\"tool\":\"cargo\",\"reason\":\"R\"}\n"
      "{\"type\":\"missing_data\",\"what\":\"W\"}\n",
      b);
  ASSERT_TRUE(p.refusals.empty()) << p.refusals[0].rule << " " << p.refusals[0].detail;
  ASSERT_EQ(p.requests.size(), 7u);
  EXPECT_EQ(p.requests[0].title, "T");
  EXPECT_EQ(p.requests[1].line, 3) << "blank lines still count";
  EXPECT_EQ(p.requests[2].labels, std::vector<std::string>{"bug"});
  EXPECT_EQ(p.requests[5].tool, "cargo");
  EXPECT_EQ(to_json(p.requests[0])["title"], "T");
}

TEST(CheckRequests, RetargetFieldEqualToTheUnitsOwnIsAccepted) {
  RequestContext ctx;
  ctx.repo = "o/r";
  ctx.issue = 7;
  auto p = parse("{\"type\":\"add_comment\",\"body\":\"x\",\"repo\":\"o/r\",\"issue_number\":7}\n",
                 {}, ctx);
  EXPECT_TRUE(p.refusals.empty());
  auto q = parse("{\"type\":\"add_comment\",\"body\":\"x\",\"issue_number\":8}\n", {}, ctx);
  ASSERT_EQ(q.refusals.size(), 1u);
  EXPECT_EQ(q.refusals[0].rule, "request.retarget");
  EXPECT_EQ(q.refusals[0].line, 1);
}

TEST(CheckRequests, EveryBadLineIsReportedWithItsNumber) {
  auto p = parse("{\"type\":\"noop\",\"message\":\"a\"}\nnot json\n{\"type\":\"x\"}\n");
  ASSERT_EQ(p.refusals.size(), 2u);
  EXPECT_EQ(p.refusals[0].line, 2);
  EXPECT_EQ(p.refusals[0].rule, "request.json");
  EXPECT_EQ(p.refusals[1].line, 3);
  EXPECT_EQ(p.refusals[1].rule, "request.type");
}

TEST(CheckRequests, SecretsInTextAreRedacted) {
  RequestContext ctx;
  ctx.secrets = {"my-literal-secret-value"};
  auto p = parse(
      "{\"type\":\"add_comment\",\"body\":\"k=my-literal-\\u200bsecret-value "
      "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\"}\n",
      {}, ctx);
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].body, "k=[REDACTED] [REDACTED]");
}

TEST(CheckRequests, ARefusedVerdictKeepsNoRequests) {
  Verdict v = check_outputs("", std::string_view("{\"type\":\"noop\",\"message\":\"a\"}\n{}\n"),
                            Bounds{}, RequestContext{});
  EXPECT_FALSE(v.accepted);
  EXPECT_TRUE(v.requests.empty());
}

class CheckRequestsFile : public testing::Test {
 protected:
  std::string dir = std::filesystem::temp_directory_path() / ("aw-req-" + std::to_string(getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(CheckRequestsFile, ReadsARegularFile) {
  std::ofstream(dir + "/r.jsonl") << "{}\n";
  auto r = read_requests_file(dir + "/r.jsonl");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "{}\n");
}

TEST_F(CheckRequestsFile, RefusesALink) {
  std::ofstream(dir + "/real") << "{}\n";
  std::filesystem::create_symlink(dir + "/real", dir + "/r.jsonl");
  EXPECT_FALSE(read_requests_file(dir + "/r.jsonl"));
}

TEST_F(CheckRequestsFile, RefusesAFifoWithoutBlocking) {
  ASSERT_EQ(mkfifo((dir + "/r.jsonl").c_str(), 0600), 0);
  auto r = read_requests_file(dir + "/r.jsonl");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos);
}

TEST_F(CheckRequestsFile, RefusesMoreThanOneMebibyte) {
  std::ofstream(dir + "/r.jsonl") << std::string((1u << 20) + 1, ' ');
  EXPECT_FALSE(read_requests_file(dir + "/r.jsonl"));
  std::filesystem::resize_file(dir + "/r.jsonl", 1u << 20);
  EXPECT_TRUE(read_requests_file(dir + "/r.jsonl"));
}

}  // namespace
}  // namespace aw
