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

// Issue 25 item 4: the live log held a line's last bytes until more output came ("...a whi", then
// "le" seconds later). settle() is the pause: it writes the tail a secret cannot be in.
// (Each call is its own statement: the operands of + are evaluated in no set order.)
TEST(CheckRedactorSettle, AQuietStreamsTailComesOutAtThePause) {
  Redactor r({kLiteral});
  std::string out = r.feed("waited for a while");
  EXPECT_EQ(out, "waited for a wh") << "before the pause the tail is held, as before";
  out += r.settle();
  EXPECT_EQ(out, "waited for a while");
  EXPECT_EQ(r.settle(), "") << "a second pause writes nothing again";
  out += r.feed(" more\n");
  out += r.finish();
  EXPECT_EQ(out, "waited for a while more\n");
}

TEST(CheckRedactorSettle, ASecretSplitAcrossTwoChunksWithAShortGapIsRedacted) {
  // The gap shorter than the quiet period: no settle() between the chunks.
  for (size_t cut = 1; cut < kLiteral.size(); ++cut) {
    Redactor r({kLiteral});
    std::string out = r.feed("key: " + kLiteral.substr(0, cut));
    out += r.feed(kLiteral.substr(cut) + " done\n");
    out += r.finish();
    EXPECT_EQ(out, "key: [REDACTED] done\n") << "cut " << cut;
  }
}

TEST(CheckRedactorSettle, ALiteralSplitByAPauseIsHeldWholeAndRedacted) {
  // The gap longer than the quiet period: settle() between the chunks, even twice. Not one byte
  // of the secret may be written before its rest shows that it is one.
  for (size_t cut = 1; cut < kLiteral.size(); ++cut) {
    Redactor r({kLiteral});
    std::string out = r.feed("key: " + kLiteral.substr(0, cut));
    out += r.settle();
    out += r.settle();
    EXPECT_EQ(out, "key: ") << "cut " << cut;
    out += r.feed(kLiteral.substr(cut) + " done\n");
    out += r.finish();
    EXPECT_EQ(out, "key: [REDACTED] done\n") << "cut " << cut;
  }
}

TEST(CheckRedactorSettle, ALiteralsFirstBytesThatTurnOutNotToBeItAreWrittenWithTheRest) {
  Redactor r({kLiteral});
  std::string out = r.feed("she said hu");
  out += r.settle();
  EXPECT_EQ(out, "she said ") << "\"hu\" could begin the literal";
  out += r.feed("sh\n");
  out += r.finish();
  EXPECT_EQ(out, "she said hush\n");
}

TEST(CheckRedactorSettle, APatternsPublicPrefixIsWrittenAndTheTokenStillRedacted) {
  // "g", "sk-", "eyJ", "AKI", "---" are how tokens begin, not secret: written at a pause (else any
  // word ending in "e" or "s" would wait for more output), and the token they begin is redacted
  // after them. A token already longer than its prefix is held whole, as before.
  for (const auto& x : {kGhp, kPat, kOpenai, kAnt, kAws, kJwt, kPem, kSlack, kGitlab}) {
    for (size_t cut : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, x.size() - 1}) {
      Redactor r({});
      std::string out = r.feed("t " + x.substr(0, cut));
      out += r.settle();
      std::string shown = cut <= 3 ? x.substr(0, cut) : "";
      EXPECT_EQ(out, "t " + shown) << x << " cut " << cut;
      out += r.feed(x.substr(cut) + " end\n");
      out += r.finish();
      EXPECT_EQ(out, "t " + shown + "[REDACTED] end\n") << x << " cut " << cut;
      expect_clean(out);
    }
  }
}

TEST(CheckRedactorSettle, APrefixThatTurnsOutOrdinaryIsNotWrittenTwice) {
  Redactor r({});
  std::string out = r.feed("ask");
  out += r.settle();
  EXPECT_EQ(out, "ask");
  out += r.feed("-me ");
  out += r.settle();
  out += r.feed("sk-learn and gh");
  out += r.settle();
  out += r.feed("ost\n");
  out += r.finish();
  EXPECT_EQ(out, "ask-me sk-learn and ghost\n");
}

TEST(CheckRedactorSettle, ATokenMatchedSoFarIsHeldAtAPause) {
  // A literal that is also token-shaped (the forge token is both): its prefix is held too.
  Redactor r({kGhp});
  std::string out = r.feed("t gh");
  out += r.settle();
  EXPECT_EQ(out, "t ");
  out += r.feed(kGhp.substr(2, 10));
  out += r.settle();
  EXPECT_EQ(out, "t ");
  out += r.feed(kGhp.substr(12) + "\n");
  out += r.finish();
  EXPECT_EQ(out, "t [REDACTED]\n");
}

TEST(CheckRedactorSettle, SettlingAfterAnyChunkKeepsEverySecretOut) {
  std::string text;
  for (int i = 0; i < 4; ++i) text += sample();
  std::string whole = redact_all(text, {kLiteral});
  auto count = [](const std::string& s) {
    size_t n = 0;
    for (size_t p = 0; (p = s.find("[REDACTED]", p)) != std::string::npos; p += 10) ++n;
    return n;
  };
  std::mt19937 rng(25);
  for (int round = 0; round < 300; ++round) {
    Redactor r({kLiteral});
    std::string out;
    for (size_t i = 0; i < text.size();) {
      size_t n = std::uniform_int_distribution<size_t>(0, round < 100 ? 4 : 80)(rng);
      out += r.feed(std::string_view(text).substr(i, n));
      i += n;
      if (rng() % 2) out += r.settle();
    }
    out += r.finish();
    expect_clean(out);
    ASSERT_EQ(count(out), count(whole)) << "round " << round << "\n" << out;
    // Only a token's public prefix (at most three bytes before a [REDACTED]) may differ.
    std::string plain_out = out, plain_whole = whole;
    for (auto* s : {&plain_out, &plain_whole})
      for (size_t p; (p = s->find("[REDACTED]")) != std::string::npos;) s->replace(p, 10, "\x01");
    size_t a = 0, b = 0;
    while (a < plain_out.size() && b < plain_whole.size()) {
      if (plain_out[a] == plain_whole[b]) {
        ++a, ++b;
        continue;
      }
      size_t mark = plain_out.find('\x01', a);
      ASSERT_TRUE(mark != std::string::npos && mark - a <= 3 && plain_whole[b] == '\x01')
          << "round " << round << " at " << a << "\n"
          << out;
      a = mark;
    }
    ASSERT_EQ(a, plain_out.size()) << "round " << round;
    ASSERT_EQ(b, plain_whole.size()) << "round " << round;
  }
}

TEST(CheckRedactorSettle, WithoutPausesTheOutputIsUnchanged) {
  // settle() never called: exactly what feed()/finish() gave before (SameOutputForEveryChunkSize).
  std::string text = sample();
  Redactor r({kLiteral});
  std::string out = r.feed(text);
  out += r.finish();
  EXPECT_EQ(out, redact_all(text, {kLiteral}));
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
