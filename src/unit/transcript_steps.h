// The agent's steps as it works (issue 25): runs/<id>/events.jsonl, one transcript event a line,
// appended while the agent phase runs, so that the dashboard shows a running unit's steps. Each
// step carries when it was parsed and where its output line begins in the unit's log:
//   {"kind":"tool_call","text":"{...}","tool":"Read","ms":1765000000123,"offset":40960}
// `ms`: the wall clock (ms since the epoch) when the line's end was read; `offset`: the log's byte
// at which the agent's output line that made it begins (as the redacted log counts bytes; a few
// bytes early when the redactor held the end of the chunk before). A unit recorded before this
// file existed has only events.json (provider/events.h), written when the agent phase ends.
//
//   TranscriptSteps steps("claude", dir + "/events.jsonl", &literals);
//   steps.feed(bytes, transcript.size());   // before the transcript writes them
//   auto all = steps.finish();              // the phase's events, for events.json
//
//   StepsCount seen;                        // kept between reads of the same file
//   auto page = read_steps(path, 2000, seen);
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "provider/events.h"

namespace aw {

// One step as its line of events.jsonl (with its newline): text the event's, redacted by the
// caller; any byte is safe (JSON-escaped, invalid UTF-8 as U+FFFD), so a line is always one line.
std::string format_step(const TranscriptEvent& e, int64_t ms, uint64_t offset);

class TranscriptSteps {
 public:
  // Past this many bytes the file stops growing and its last line says so; the log keeps every
  // byte of the output. Bounds the owner's disk against an agent that prints without end.
  static constexpr uint64_t kMaxBytes = 64u << 20;
  // provider: as for EventParser. path: the file, created 0600 at the first step (no step, no
  // file: the page says none was recorded). literals: redacted from every text before it is
  // written (the unit's, which grow with each round's run token; not owned; may be null).
  TranscriptSteps(std::string_view provider, std::string path,
                  const std::vector<std::string>* literals, uint64_t max_bytes = kMaxBytes);
  ~TranscriptSteps();
  TranscriptSteps(const TranscriptSteps&) = delete;
  TranscriptSteps& operator=(const TranscriptSteps&) = delete;

  // The agent's standard output, any chunking; `at`: the log offset its first byte goes to. Each
  // line ended here is parsed at once and its steps appended to the file.
  void feed(std::string_view bytes, uint64_t at);
  // The output is over: a last line without its newline and the parser's own end are parsed and
  // written. Returns every event of this phase, redacted; the next feed starts a new phase.
  std::vector<TranscriptEvent> finish();

  uint64_t written() const { return written_; }  // bytes in the file
  uint64_t dropped() const { return dropped_; }  // steps left out past the cap
  int write_error() const { return error_; }     // the first errno, 0 when none

 private:
  void put(std::vector<TranscriptEvent> events);
  void append(const std::string& line);
  EventParser parser_;
  std::string path_;
  const std::vector<std::string>* literals_;
  uint64_t cap_;
  int fd_ = -1;
  bool opened_ = false;     // the open was tried (once: a failure is not retried per line)
  bool line_start_ = true;  // the next byte fed begins a line
  uint64_t line_at_ = 0;    // the log offset where the current line began
  uint64_t written_ = 0, dropped_ = 0;
  int error_ = 0;
  std::vector<TranscriptEvent> phase_;  // this phase's events, for finish()
};

// What a reader counted of a steps file, so that the next read of a grown file counts only the
// new bytes (the file is append-only while the unit runs). Keep one per file.
struct StepsCount {
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;   // bytes counted (complete lines only)
  uint64_t lines = 0;  // complete lines in them
  // The last bytes counted (up to kMarkBytes): a file rewritten in place, or another file on a
  // reused inode, differs there, and is counted afresh instead of from `size`.
  std::string mark;
  static constexpr size_t kMarkBytes = 64;
};

// The last `max` steps of events.jsonl, as the API gives them.
struct StepsPage {
  nlohmann::json events;  // an array: each step with its known fields only
  uint64_t total = 0;     // complete lines in the file (a line being written is not counted)
  uint64_t left_out = 0;  // lines before the ones given
};

// Reads the file from its end (never the whole file: it grows to tens of MiB while the agent
// runs and the page polls it): the last `max` complete lines, parsed; a line that is no step
// object (a planted or torn file) is skipped but counted. `seen` is updated. An Error names the
// file when it cannot be read.
Result<StepsPage> read_steps(const std::string& path, size_t max, StepsCount& seen);

}  // namespace aw
