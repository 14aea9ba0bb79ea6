// The transcript as the live log reads it (issue 25 item 4): a pause writes the tail the redactor
// held back, and a secret split by a pause still reaches the file only as [REDACTED].
#include "unit/transcript.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>

#include "base/fs.h"
#include "check/redact.h"
#include "proc/runner.h"

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
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The redacting filter as run_unit makes it.
  std::unique_ptr<Transcript> open() {
    auto r = std::make_shared<Redactor>(std::vector<std::string>{kSecret});
    auto t = Transcript::open(path, [r](std::string_view b, Transcript::Drain d) {
      switch (d) {
        case Transcript::Drain::more:
          return r->feed(b);
        case Transcript::Drain::pause:
          return r->settle();
        case Transcript::Drain::last:
          break;
      }
      return r->finish();
    });
    EXPECT_TRUE(t) << (t ? "" : t.error().message);
    return t ? std::make_unique<Transcript>(std::move(*t)) : nullptr;
  }

  std::string file() { return read_file(path).value_or("(unreadable)"); }

  std::string dir, path;
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

}  // namespace
}  // namespace aw
