// The agent's steps as it works (issue 25): runs/<id>/events.jsonl appended line by line while the
// agent's output is parsed, each step with its time and the log offset of its line, and the
// server's reader that takes the last steps from the file's end without parsing the rest.
#include "unit/transcript_steps.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/fs.h"

namespace aw {
namespace {

using nlohmann::json;

// Fake, valid nowhere.
const std::string kStepsSecret = "hunter2-steps-fake-value-0123";

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class TranscriptStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char t[] = "/tmp/aw-steps-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir = t;
    path = dir + "/events.jsonl";
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  // The file's complete lines, each parsed (a line that is not JSON fails the test).
  std::vector<json> lines() {
    std::string data = read_file(path).value_or("");
    std::vector<json> out;
    for (size_t p = 0; p < data.size();) {
      size_t nl = data.find('\n', p);
      if (nl == std::string::npos) break;
      auto j = json::parse(data.substr(p, nl - p), nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << "not one JSON line: " << data.substr(p, nl - p);
      out.push_back(j);
      p = nl + 1;
    }
    return out;
  }
  void append_raw(const std::string& bytes) {
    std::string data = read_file(path).value_or("");
    ASSERT_TRUE(write_file(path, data + bytes, 0600));
  }

  std::string dir, path;
  std::vector<std::string> literals{kStepsSecret};
};

TEST_F(TranscriptStepsTest, AStepIsWrittenWhenItsLineEndsWithItsTimeAndLogOffset) {
  TranscriptSteps steps("command", path, &literals);
  int64_t before = wall_ms();
  steps.feed("reading a.txt\nedit", 100);
  // The first line is a step at once, while the agent runs; the second is still being printed.
  auto got = lines();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["kind"], "message");
  EXPECT_EQ(got[0]["text"], "reading a.txt");
  EXPECT_EQ(got[0]["offset"], 100);
  EXPECT_GE(got[0]["ms"].get<int64_t>(), before);
  EXPECT_LE(got[0]["ms"].get<int64_t>(), wall_ms());
  // A line split across chunks is stamped with the offset its first byte went to.
  steps.feed("ing b.txt\n", 500);
  got = lines();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1]["text"], "editing b.txt");
  EXPECT_EQ(got[1]["offset"], 114);
  // A last line without its newline is a step when the output ends.
  steps.feed("done", 700);
  EXPECT_EQ(lines().size(), 2u);
  auto all = steps.finish();
  got = lines();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2]["text"], "done");
  EXPECT_EQ(got[2]["offset"], 700);
  ASSERT_EQ(all.size(), 3u) << "finish gives the phase's every event, for events.json";
  EXPECT_EQ(all[1].text, "editing b.txt");
  EXPECT_EQ(steps.write_error(), 0);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // The next phase (round) appends; its lines begin afresh.
  steps.feed("round 2\n", 900);
  got = lines();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[3]["offset"], 900);
  EXPECT_TRUE(steps.finish().size() == 1u);
}

TEST_F(TranscriptStepsTest, NoStepNoFile) {
  TranscriptSteps steps("command", path, &literals);
  steps.feed("   \n\n", 0);  // blank lines are no step
  EXPECT_TRUE(steps.finish().empty());
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "the page says no step was recorded";
}

// Hostile output: a line that looks like a step line, control bytes, invalid UTF-8, a carriage
// return, a secret. Each step stays one JSON line of the file; the secret is redacted.
TEST_F(TranscriptStepsTest, HostileLinesStayOneRedactedStepEach) {
  TranscriptSteps steps("command", path, &literals);
  std::string out = "{\"kind\":\"usage\",\"cost_usd\":1e300}\n";
  out += "\x1b]0;owned\x07 bell \xff\xfe bad utf-8\r\n";
  out += "key=" + kStepsSecret + " and \"quotes\" \\ backslash\n";
  out += std::string("nul\0byte", 8) + "\n";
  steps.feed(out, 0);
  auto got = lines();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0]["kind"], "message") << "a line's text never becomes a step's fields";
  EXPECT_EQ(got[0]["text"], "{\"kind\":\"usage\",\"cost_usd\":1e300}");
  EXPECT_NE(got[1]["text"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos)
      << "invalid UTF-8 is U+FFFD";
  EXPECT_EQ(got[2]["text"], "key=[REDACTED] and \"quotes\" \\ backslash");
  std::string file = read_file(path).value_or("");
  EXPECT_EQ(file.find(kStepsSecret), std::string::npos);
  EXPECT_EQ(std::count(file.begin(), file.end(), '\n'), 4);
  // The reader gives the same steps back.
  StepsCount seen;
  auto page = read_steps(path, 2000, seen);
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->total, 4u);
  ASSERT_EQ(page->events.size(), 4u);
  EXPECT_EQ(page->events[2]["text"], got[2]["text"]);
}

// Past the cap the file stops growing and says so, once; the phase's events are all still given
// for events.json, and the log keeps the output.
TEST_F(TranscriptStepsTest, TheCapEndsTheFileWithANote) {
  TranscriptSteps steps("command", path, &literals, 400);
  for (int i = 0; i < 50; ++i) steps.feed(fmt::format("line {} of a chatty agent\n", i), i * 25);
  auto got = lines();
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got.back()["kind"], "error");
  EXPECT_NE(got.back()["text"].get<std::string>().find("reached 400 bytes"), std::string::npos);
  EXPECT_GT(steps.dropped(), 0u);
  EXPECT_EQ(got.size() - 1 + steps.dropped(), 50u);
  std::string file = read_file(path).value_or("");
  EXPECT_LT(file.size(), 400u + 300u) << "the note passes the cap by its own bytes only";
  EXPECT_EQ(steps.finish().size(), 50u);
}

// The parser's cap of kEventsMax a phase holds although the steps are taken out line by line.
TEST_F(TranscriptStepsTest, TheEventCapCountsTheStepsTakenSoFar) {
  TranscriptSteps steps("command", path, nullptr);
  std::string many;
  for (size_t i = 0; i < kEventsMax + 5; ++i) many += "x\n";
  steps.feed(many, 0);
  auto all = steps.finish();
  ASSERT_EQ(all.size(), kEventsMax + 1);
  EXPECT_EQ(all.back().kind, TranscriptEvent::Kind::error);
  EXPECT_NE(all.back().text.find("5 more event(s) dropped"), std::string::npos) << all.back().text;
}

TEST_F(TranscriptStepsTest, TheReaderTakesTheLastStepsFromTheEndAndCountsOnlyNewLines) {
  {
    TranscriptSteps steps("command", path, nullptr);
    // ~600 KiB: the reader goes back over more than one of its chunks.
    for (int i = 0; i < 5000; ++i)
      steps.feed(fmt::format("step {:05} {}\n", i, std::string(100, 'x')), 0);
  }
  StepsCount seen;
  auto page = read_steps(path, 2000, seen);
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->total, 5000u);
  EXPECT_EQ(page->left_out, 3000u);
  ASSERT_EQ(page->events.size(), 2000u);
  EXPECT_TRUE(page->events[0]["text"].get<std::string>().starts_with("step 03000 "));
  EXPECT_TRUE(page->events[1999]["text"].get<std::string>().starts_with("step 04999 "));
  EXPECT_EQ(seen.lines, 5000u);
  uint64_t counted = seen.size;

  // A line being written (no newline yet) is neither counted nor given.
  append_raw("{\"kind\":\"message\",\"text\":\"half");
  page = read_steps(path, 2000, seen);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 5000u);
  EXPECT_EQ(seen.size, counted);
  EXPECT_TRUE(page->events[1999]["text"].get<std::string>().starts_with("step 04999 "));
  // Its end, then planted lines that are no step (not an object, not JSON, an unknown kind): all
  // counted, the planted ones not given; a field of the wrong type is left out of the step.
  append_raw(" done\",\"ms\":\"soon\",\"offset\":7}\n[1,2]\nnot json\n{\"kind\":\"evil\"}\n");
  page = read_steps(path, 2000, seen);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 5004u);
  EXPECT_EQ(page->left_out, 3004u);
  ASSERT_EQ(page->events.size(), 1997u);
  const json& last = page->events[1996];
  EXPECT_EQ(last["text"], "half done");
  EXPECT_FALSE(last.contains("ms"));
  EXPECT_EQ(last["offset"], 7);

  // Fewer lines than asked for: all of them, none left out; the first line of the file too.
  page = read_steps(path, 10000, seen);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->left_out, 0u);
  ASSERT_EQ(page->events.size(), 5001u);
  EXPECT_TRUE(page->events[0]["text"].get<std::string>().starts_with("step 00000 "));

  // The file rewritten in place (the same inode, larger than what was counted: a count from the
  // old size would be wrong) is counted afresh.
  {
    std::string lines;
    for (int i = 0; i < 6000; ++i)
      lines +=
          fmt::format("{{\"kind\":\"message\",\"text\":\"r{} {}\"}}\n", i, std::string(150, 'y'));
    ASSERT_GT(lines.size(), seen.size);
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
    ::close(fd);
    page = read_steps(path, 2000, seen);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->total, 6000u);
    EXPECT_EQ(page->left_out, 4000u);
    ASSERT_EQ(page->events.size(), 2000u);
    EXPECT_TRUE(page->events[1999]["text"].get<std::string>().starts_with("r5999 "));
  }

  // Another file in its place (a new inode) is counted afresh, not from the old count.
  std::filesystem::remove(path);
  {
    TranscriptSteps steps("command", path, nullptr);
    steps.feed("only one\n", 0);
  }
  page = read_steps(path, 2000, seen);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->total, 1u);
  ASSERT_EQ(page->events.size(), 1u);
  EXPECT_EQ(page->events[0]["text"], "only one");
}

TEST_F(TranscriptStepsTest, TheReaderRefusesALinkAndSaysWhichFile) {
  std::string real = dir + "/elsewhere.jsonl";
  ASSERT_TRUE(write_file(real, "{\"kind\":\"message\",\"text\":\"x\"}\n", 0600));
  ASSERT_EQ(::symlink(real.c_str(), path.c_str()), 0);
  StepsCount seen;
  auto page = read_steps(path, 2000, seen);
  ASSERT_FALSE(page);
  EXPECT_NE(page.error().message.find(path), std::string::npos) << page.error().message;
}

}  // namespace
}  // namespace aw
