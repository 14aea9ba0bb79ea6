// The transcript as the live log reads it (issue 25 item 4): a pause writes the tail the redactor
// held back, and a secret split by a pause still reaches the file only as [REDACTED]. Its index
// (issue 25, the log as a place to watch work happen): each phase's heading at its exact byte and
// line, and the times of the writes.
#include "unit/transcript.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include "base/fs.h"
#include "check/redact.h"
#include "proc/runner.h"
#include "unit/transcript_index.h"

extern char** environ;

namespace aw {
namespace {

// Fake, valid nowhere.
const std::string kSecret = "hunter2-but-longer-value";

class TranscriptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/aw-transcript-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir = t;
    path = dir + "/transcript.log";
    index = dir + "/transcript.index";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The redacting filter as run_unit makes it.
  // After Drain::last (a heading, or the end) a fresh redactor takes what follows, as there.
  std::unique_ptr<Transcript> open(const std::string& index_path = "") {
    auto r = std::make_shared<Redactor>(std::vector<std::string>{kSecret});
    auto t = Transcript::open(
        path,
        [r](std::string_view b, Transcript::Drain d) {
          switch (d) {
            case Transcript::Drain::more:
              return r->feed(b);
            case Transcript::Drain::pause:
              return r->settle();
            case Transcript::Drain::last:
              break;
          }
          std::string out = r->finish();
          *r = Redactor({kSecret});
          return out;
        },
        0, index_path);
    EXPECT_TRUE(t) << (t ? "" : t.error().message);
    return t ? std::make_unique<Transcript>(std::move(*t)) : nullptr;
  }

  std::string file() { return read_file(path).value_or("(unreadable)"); }
  std::vector<TranscriptMark> marks() { return parse_marks(read_file(index).value_or("")); }

  std::string dir, path, index;
};

TEST_F(TranscriptTest, APauseWritesTheHeldTail) {
  auto t = open();
  ASSERT_TRUE(t);
  t->write("waited for a while");
  EXPECT_EQ(file(), "waited for a wh") << "held in case a secret spans chunks";
  t->settle();
  EXPECT_EQ(file(), "waited for a while");
  t->write(" more\n");
  t->close();
  EXPECT_EQ(file(), "waited for a while more\n");
}

// Issue 25 (figures): while output kept flowing (a line each 100 ms) every line's last bytes waited
// for the next line, since the quiet timer never fired. A chunk that ends a line is written whole.
TEST_F(TranscriptTest, AChunkEndingALineIsWrittenWhole) {
  auto t = open();
  ASSERT_TRUE(t);
  t->write("tick 1733450000123 ok\n");
  EXPECT_EQ(file(), "tick 1733450000123 ok\n");
  t->write("tick 1733450000223 o");
  // The redactor keeps the last few bytes no scan window covered yet (fewer than four).
  EXPECT_TRUE(file().starts_with("tick 1733450000123 ok\ntick 17334500002")) << file();
  EXPECT_EQ(file().find("0223 o"), std::string::npos) << "a line's middle is held: " << file();
  t->write("k\n");
  EXPECT_EQ(file(), "tick 1733450000123 ok\ntick 1733450000223 ok\n");
  // A secret split across chunks still reaches the file only redacted, and a token pattern that
  // ends a chunk's line is redacted whole.
  t->write("key: " + kSecret.substr(0, 5));
  t->write(kSecret.substr(5) + " done\n");
  t->write("tok ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n");
  std::string f = file();
  EXPECT_TRUE(f.ends_with("ok\nkey: [REDACTED] done\ntok ") ||
              f.ends_with("ok\nkey: [REDACTED] done\ntok [REDACTED]\n"))
      << f;  // a token that ends a line may wait for the pause timer; never shown unredacted
  EXPECT_EQ(f.find("ghp_A1b2"), std::string::npos) << f;
  t->close();
  EXPECT_TRUE(file().ends_with("ok\nkey: [REDACTED] done\ntok [REDACTED]\n")) << file();
}

TEST_F(TranscriptTest, ASecretSplitByAPauseReachesTheFileOnlyRedacted) {
  auto t = open();
  ASSERT_TRUE(t);
  t->write("key: " + kSecret.substr(0, 2));
  t->settle();
  EXPECT_EQ(file(), "key: ");
  t->write(kSecret.substr(2, 5));
  t->settle();
  EXPECT_EQ(file(), "key: ");
  t->write(kSecret.substr(7) + " done\n");
  t->close();
  EXPECT_EQ(file(), "key: [REDACTED] done\n");
}

// Wired as run_one_phase wires it: the runner's on_quiet settles the transcript. The phase waits
// (20 s at most) until the file shows its unfinished line, then prints the rest; without the
// settle it would print " late" first.
TEST_F(TranscriptTest, AQuietPhasesUnfinishedLineReachesTheFile) {
  auto t = open();
  ASSERT_TRUE(t);
  PhaseSpec s;
  s.name = "test";
  s.argv = {"/bin/sh", "-c",
            "printf 'waited for a while'; i=0; "
            "until grep -qF 'for a while' \"$1\"; do "
            "i=$((i+1)); if [ $i -gt 400 ]; then printf ' late'; break; fi; sleep 0.05; done; "
            "printf ' more\\n'",
            "sh", path};
  s.env = build_env(environ, {}, {});
  s.timeout = std::chrono::seconds(120);
  s.grace = std::chrono::milliseconds(500);
  s.on_output = [&](Stream, std::string_view b) { t->write(b); };
  s.on_quiet = [&] { t->settle(); };
  auto r = run_phase(s);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->end, PhaseEnd::exited) << describe(*r);
  t->close();
  EXPECT_EQ(file(), "waited for a while more\n");
}

// The newlines before byte `offset` of text: the line a mark must name.
uint64_t lines_before(const std::string& text, uint64_t offset) {
  return static_cast<uint64_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

TEST_F(TranscriptTest, TheIndexMarksEachHeadingAtItsLineAndTheTimeOfTheWrites) {
  auto t = open(index);
  ASSERT_TRUE(t);
  t->write("before the phases\n");
  t->heading("agent: run-agent --fast", "agent");
  t->write("one\ntwo\n");
  t->heading("check 1 (round 2): make test", "check 1 (round 2)");
  t->write("checked");
  t->close();
  std::string log = file();
  auto m = marks();
  std::vector<TranscriptMark> phases;
  for (const auto& k : m)
    if (k.kind == TranscriptMark::Kind::phase) phases.push_back(k);
  ASSERT_EQ(phases.size(), 2u) << read_file(index).value_or("");
  EXPECT_EQ(phases[0].phase, "agent");
  EXPECT_EQ(phases[0].offset, log.find("── agent: run-agent --fast ──\n"));
  EXPECT_EQ(phases[0].line, 2u) << "line 0 'before', line 1 the heading's blank line";
  EXPECT_EQ(phases[1].phase, "check 1 (round 2)");
  EXPECT_EQ(phases[1].offset, log.find("── check 1 (round 2): make test ──\n"));
  EXPECT_EQ(phases[1].line, lines_before(log, phases[1].offset));
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().kind, TranscriptMark::Kind::time);
  EXPECT_EQ(m.front().offset, 0u);
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  for (const auto& k : m) {
    EXPECT_EQ(k.line, lines_before(log, k.offset)) << k.offset;
    EXPECT_LE(k.ms, now);
    EXPECT_GT(k.ms, now - 60000);
  }
}

// The redactor held the end of what came before (it could begin the secret): the heading writes
// it first, so the mark is at the heading's own line, not a few bytes before it.
TEST_F(TranscriptTest, AHeadingsMarkIsExactAfterHeldBytes) {
  auto t = open(index);
  ASSERT_TRUE(t);
  t->write("key: " + kSecret.substr(0, 3));
  EXPECT_EQ(file().find("hun"), std::string::npos) << "the secret's first bytes are held";
  t->heading("agent: a", "agent");
  t->write("after\n");
  t->close();
  std::string log = file();
  EXPECT_EQ(log, "key: " + kSecret.substr(0, 3) + "\n── agent: a ──\nafter\n");
  auto m = marks();
  auto phase = std::find_if(m.begin(), m.end(),
                            [](const auto& k) { return k.kind == TranscriptMark::Kind::phase; });
  ASSERT_NE(phase, m.end());
  EXPECT_EQ(phase->offset, log.find("── agent"));
  EXPECT_EQ(phase->line, 1u);
}

// A reader counts a line number from the last mark before a byte: marks come at least every
// kStampBytes, however fast the writes.
TEST_F(TranscriptTest, MarksComeAtLeastEvery64KiB) {
  auto t = open(index);
  ASSERT_TRUE(t);
  std::string line(1023, 'x');
  line += '\n';
  for (int i = 0; i < 300; ++i) t->write(line);
  t->close();
  std::string log = file();
  ASSERT_EQ(log.size(), 300u * 1024);
  auto m = marks();
  ASSERT_GE(m.size(), 4u);
  uint64_t last = 0;
  for (const auto& k : m) {
    EXPECT_LE(k.offset - last, Transcript::kStampBytes + 1024);
    EXPECT_EQ(k.line, lines_before(log, k.offset));
    last = k.offset;
  }
  EXPECT_LE(log.size() - last, Transcript::kStampBytes + 1024);
}

TEST(TranscriptIndex, ParsesWholeLinesInOrderAndStopsAtAnythingElse) {
  auto m = parse_marks(
      "T 0 0 1700000000000\nP 5 1 1700000000100 check 2 (round 3)\nT 9 2 17\n"
      "T 12 3 18");  // the last line is still being written
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1].kind, TranscriptMark::Kind::phase);
  EXPECT_EQ(m[1].phase, "check 2 (round 3)");
  EXPECT_EQ(m[1].offset, 5u);
  EXPECT_EQ(m[1].line, 1u);
  EXPECT_EQ(m[1].ms, 1700000000100);
  EXPECT_EQ(m[2].ms, 17);
  EXPECT_EQ(parse_marks("T 9 2 17\nT 3 2 18\nT 10 3 19\n").size(), 1u) << "an offset going back";
  EXPECT_EQ(parse_marks("T 9 2 17\nT 10 1 18\n").size(), 1u) << "a line going back";
  for (const char* bad : {"X 1 2 3\n", "T 1 2\n", "T -1 2 3\n", "T 1 2 3 4\n", "P 1 2 3\n",
                          "P 1 2 3 \n", "T 1x 2 3\n", "T  1 2 3\n", "T 1 2 3\r\n"})
    EXPECT_TRUE(parse_marks(bad).empty()) << bad;
  TranscriptMark p;
  p.kind = TranscriptMark::Kind::phase;
  p.offset = 7, p.line = 1, p.ms = 5, p.phase = "agent\nT 0 0 0";
  EXPECT_EQ(format_mark(p), "P 7 1 5 agent T 0 0 0\n");
  auto back = parse_marks(format_mark(p));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].phase, "agent T 0 0 0");
}

}  // namespace
}  // namespace aw
