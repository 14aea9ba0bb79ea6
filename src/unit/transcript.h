// The unit's transcript file: every byte a phase prints passes through one filter (the redactor)
// before it is written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace aw {

class Transcript {
 public:
  // How much a filter call gives back: `more` (input goes on), `pause` (the phase went quiet:
  // what can no longer be part of a secret), `last` (everything).
  enum class Drain { more, pause, last };
  // A streaming filter: it may hold back the tail of a chunk (a secret split across chunks) and
  // must give everything back when called with Drain::last, then take more input afresh (a
  // phase's heading drains it so, and close()).
  using Filter = std::function<std::string(std::string_view, Drain)>;
  // max_bytes (0 = no cap): past it the transcript says it was cut and drops the rest, so an
  // agent printing without end cannot fill the owner's disk; the unit goes on.
  // index_path ("" = none): the marks of transcript_index.h go there: each phase's heading, and
  // the time of a write at least every kStampEveryMs and kStampBytes. Kept only for a transcript
  // that starts empty (a line number counts from its first byte).
  static Result<Transcript> open(const std::string& path, Filter filter, uint64_t max_bytes = 0,
                                 const std::string& index_path = "");
  static constexpr int64_t kStampEveryMs = 1000;     // a line's time is at most this early
  static constexpr uint64_t kStampBytes = 64 << 10;  // a reader counts lines from a mark: bounded
  Transcript(Transcript&&) noexcept;
  Transcript& operator=(Transcript&&) noexcept;
  ~Transcript();

  // "\n── agent: claude -p ──\n". With `phase`, what the filter held is written first
  // (Drain::last), so that the index marks the very byte the heading's line begins at, under that
  // name.
  void heading(const std::string& text, const std::string& phase = "");
  // Through the filter; a chunk that ends with a newline also settles it (below), so the line's
  // end is not held for the next chunk.
  void write(std::string_view bytes);
  // The phase has printed nothing for a while (or ended): write what the filter held back and
  // can give now, so that the live log shows a line's end without waiting for more output.
  void settle();
  void flush();
  void close();                                  // drains the filter and closes the file
  uint64_t dropped() const { return dropped_; }  // bytes left out past the cap
  // Bytes in the file so far (up to the cap): the offset the next written byte goes to, save
  // for what the filter holds back (a few bytes, none after a chunk that ended a line).
  uint64_t size() const { return written_; }
  // The first write error (an errno: ENOSPC on a full disk), 0 when every byte was written; the
  // file then ends early and the record says so.
  int write_error() const { return error_; }

 private:
  Transcript(std::FILE* f, Filter filter, uint64_t cap)
      : f_(f), filter_(std::move(filter)), cap_(cap) {}
  void put(std::string_view out);
  void emit(std::string_view bytes);  // fwrite, its first error kept
  void mark(bool phase, const std::string& name, uint64_t offset, uint64_t line);
  std::FILE* f_ = nullptr;
  Filter filter_;
  uint64_t cap_ = 0, written_ = 0, dropped_ = 0;
  int error_ = 0;
  std::FILE* index_ = nullptr;  // transcript.index, or none
  uint64_t lines_ = 0;          // newlines written so far
  uint64_t marked_at_ = 0;      // the offset of the last mark
  int64_t marked_ms_ = 0;       // and its time; 0: no mark yet
};

}  // namespace aw
