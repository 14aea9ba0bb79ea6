// The transcript's index (runs/<id>/transcript.index): where each phase's heading line begins,
// and when the bytes were written, so that the dashboard shows the log as one section per phase
// with line numbers and times without reading the whole transcript. Written by Transcript as the
// phases print, read by serve while they do. One mark a line, text:
//   P OFFSET LINE MS NAME   phase NAME's heading line ("── agent: … ──") begins at byte OFFSET
//   T OFFSET LINE MS        a write began at byte OFFSET
// LINE is the number of newlines before OFFSET (the 0-based line OFFSET is on), MS the wall clock
// (ms since the epoch). Marks come in the order of their offsets. The sections are taken from
// here, never from the transcript's text: an agent can print a line that looks like a heading.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aw {

struct TranscriptMark {
  enum class Kind { phase, time };
  Kind kind = Kind::time;
  uint64_t offset = 0;
  uint64_t line = 0;
  int64_t ms = 0;
  std::string phase;  // Kind::phase: the phase's name
};

// One mark as a line of the index (a newline in a name becomes a space).
std::string format_mark(const TranscriptMark& m);

// The marks of an index's text. A line without its newline (being written) or malformed ends the
// list, and so does a mark whose offset or line goes back: a reader never gets marks out of order.
std::vector<TranscriptMark> parse_marks(std::string_view text);

}  // namespace aw
