// The redactor: every secret shape and literal is removed, whatever the chunking of the stream.
#include <gtest/gtest.h>

#include <random>

#include "check/redact.h"

namespace aw {
namespace {

// Fake values shaped like real ones; none is a real credential.
const std::string kGhp = "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
const std::string kPat = "github_pat_11ABCDEFG0" + std::string("abcdefghij1234567890_xyz");
const std::string kAnt = "sk-ant-api03-" + std::string("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1");
const std::string kOpenai = "sk-proj-" + std::string("a1B2c3D4e5F6g7H8i9J0k1L2m3N4");
const std::string kAws = "AKIAABCDEFGHIJ234567";
const std::string kGitlab = "glpat-aB3dE6gH9jK2mN5pQ8sT";
const std::string kSlack = "xoxb-1234567890-abcdefghijkl";
const std::string kJwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlZmFrZXZhbHVl";
const std::string kPem =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAfake\n"
    "-----END OPENSSH PRIVATE KEY-----";
const std::string kLiteral = "hunter2-but-longer-value";

std::vector<std::string> all_secrets() {
  return {kGhp, kPat, kAnt, kOpenai, kAws, kGitlab, kSlack, kJwt, kPem, kLiteral};
}

std::string sample() {
  std::string s = "start\n";
  for (const auto& x : all_secrets()) s += "token=" + x + " and text\n";
  s += R"({"env": "TOKEN=)" + kGhp +
       R"(\nnext"})"
       "\n";  // JSON-escaped context
  return s;
}

void expect_clean(const std::string& out) {
  for (const auto& x : all_secrets()) EXPECT_EQ(out.find(x), std::string::npos) << x;
  // Not even a recognisable fragment of the literal or the token bodies.
  EXPECT_EQ(out.find("A1b2C3d4E5f6"), std::string::npos);
  EXPECT_EQ(out.find("hunter2-but"), std::string::npos);
  EXPECT_EQ(out.find("b3BlbnNzaC1"), std::string::npos);
}

TEST(CheckRedactor, RemovesEveryPatternAndLiteral) {
  std::string out = redact_all(sample(), {kLiteral});
  expect_clean(out);
  EXPECT_NE(out.find("[REDACTED]"), std::string::npos);
  EXPECT_NE(out.find("start\n"), std::string::npos) << "ordinary text is kept";
}

TEST(CheckRedactor, SameOutputForEveryChunkSize) {
  std::string text = sample();
  std::string whole = redact_all(text, {kLiteral});
  for (size_t chunk = 1; chunk <= 97; ++chunk) {
    Redactor r({kLiteral});
    std::string out;
    for (size_t i = 0; i < text.size(); i += chunk)
      out += r.feed(std::string_view(text).substr(i, chunk));
    out += r.finish();
    ASSERT_EQ(out, whole) << "chunk size " << chunk;
  }
}

TEST(CheckRedactor, SameOutputForRandomSplits) {
  std::string text;
  for (int i = 0; i < 20; ++i) text += sample();
  std::string whole = redact_all(text, {kLiteral});
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    Redactor r({kLiteral});
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
      size_t n = std::uniform_int_distribution<size_t>(0, 300)(rng);
      out += r.feed(std::string_view(text).substr(i, n));
      i += n;
    }
    out += r.finish();
    ASSERT_EQ(out, whole);
  }
  expect_clean(whole);
}

TEST(CheckRedactor, JsonEscapedLiteralIsRedacted) {
  std::string secret = "pa\"ss/word\\value";
  std::string out = redact_all(R"({"a":"pa\"ss\/word\\value","b":"pa\"ss/word\\value"})", {secret});
  EXPECT_EQ(out, R"({"a":"[REDACTED]","b":"[REDACTED]"})");
}

TEST(CheckRedactor, OverlappingLiteralsAreUnioned) {
  EXPECT_EQ(redact_all("xxabcdefghijklyy", {"abcdefgh", "efghijkl"}), "xx[REDACTED]yy");
}

TEST(CheckRedactor, ShortLiteralsAreIgnored) {
  EXPECT_EQ(redact_all("the cat sat", {"cat"}), "the cat sat");
}

TEST(CheckRedactor, UnterminatedPemIsRedactedToTheEnd) {
  std::string out = redact_all("before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret\n", {});
  EXPECT_EQ(out, "before\n[REDACTED]");
}

TEST(CheckRedactor, ByteAtATimeOpenPemStaysLinearAndCorrect) {
  // 1-byte feeds of an unterminated key block: each feed must not rescan the whole tail.
  std::string text = "log\n-----BEGIN EC PRIVATE KEY-----\n" + std::string(150 << 10, 'Q');
  Redactor r({});
  std::string out;
  for (char c : text) out += r.feed(std::string_view(&c, 1));
  out += r.finish();
  EXPECT_EQ(out, redact_all(text, {}));
  EXPECT_EQ(out.find("QQQQ", out.find("[REDACTED]")), out.find("[REDACTED]") + 10)
      << "after the 64 KiB cap the rest of the block is plain text again";
}

TEST(CheckRedactor, OrdinaryWordsWithPrefixesStay) {
  std::string text = "ask-questions-about-everything-here, skeleton, AKIA short, eyJ alone";
  EXPECT_EQ(redact_all(text, {}), text);
}

TEST(CheckRedactor, OpenAiKeyAfterJsonEscapeIsRedacted) {
  EXPECT_EQ(redact_all("\"x\\n" + kOpenai + "\"", {}), "\"x\\n[REDACTED]\"");
}

TEST(CheckFindSecrets, ReportsOffsetsAndKinds) {
  std::string t = "a " + kGhp + " b " + kAws;
  auto hits = find_secrets(t, {});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].offset, 2u);
  EXPECT_EQ(hits[0].kind, "github");
  EXPECT_EQ(hits[1].kind, "aws");
  EXPECT_EQ(t.substr(hits[1].offset, hits[1].length), kAws);
}

}  // namespace
}  // namespace aw
