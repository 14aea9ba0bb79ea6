// What an agent round after the first is told (docs/rounds.md): the unit's task, then the failing
// checks of the round before, each with its exit and the last lines of its redacted output,
// fenced and announced as data. Also the streaming tail that output is taken from, and the one
// line a `when:` command's output gives a skipped unit as its reason.
//
//   OutputTail tail(literals);  tail.feed(chunk)...;  std::string t = tail.finish();
//   std::string next = round_task(task, 2, 3, {{"check 1", "exit 1", t}});
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "check/redact.h"

namespace aw {

// The most one failing check adds to the next round's task: its last 40 lines, at most 4 KiB.
inline constexpr size_t kTailLines = 40;
inline constexpr size_t kTailBytes = 4096;

// The end of a phase's output (both streams, in the order they came), redacted as it streams
// (so a secret cut by the window is still found whole), without controls or ANSI escapes.
class OutputTail {
 public:
  explicit OutputTail(const std::vector<std::string>& literals);
  void feed(std::string_view bytes);
  // The last kTailLines lines, at most kTailBytes (cut at a line start when it can be).
  std::string finish();

 private:
  Redactor redactor_;
  std::string kept_;
};

struct FailedCheck {
  std::string name;     // "check 2"
  std::string outcome;  // "exit 1", "killed by signal 9 (SIGKILL)"
  std::string tail;     // OutputTail::finish()
};

// The task of round `round` (2..rounds): task, then the failed checks as fenced data.
std::string round_task(const std::string& task, int round, int rounds,
                       const std::vector<FailedCheck>& failed);

// The last non-empty line of an (already redacted) output, made inert for a record, the
// dashboard and a forge comment: no controls, no links, no @mentions, at most max_chars.
std::string last_line_inert(const std::string& text, size_t max_chars = 300);

}  // namespace aw
