#include "unit/transcript.h"

#include <fcntl.h>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "base/fs.h"
#include "unit/transcript_index.h"

namespace aw {

Result<Transcript> Transcript::open(const std::string& path, Filter filter, uint64_t max_bytes,
                                    const std::string& index_path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("open transcript {}: {}", path, errno_text(errno));
  std::FILE* f = ::fdopen(fd, "a");
  if (!f) {
    ::close(fd);
    return fail("open transcript {}: {}", path, errno_text(errno));
  }
  struct stat st {};
  uint64_t already = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  Transcript t(f, std::move(filter), max_bytes);
  t.written_ = already;
  // The index is the page's convenience: without it (it could not be made) the log is still
  // whole, shown without sections, numbers and times.
  if (!index_path.empty() && already == 0) {
    int ifd =
        ::open(index_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ifd >= 0) {
      t.index_ = ::fdopen(ifd, "w");
      if (!t.index_) ::close(ifd);
    }
  }
  return t;
}

Transcript::Transcript(Transcript&& o) noexcept
    : f_(o.f_),
      filter_(std::move(o.filter_)),
      cap_(o.cap_),
      written_(o.written_),
      dropped_(o.dropped_),
      error_(o.error_),
      index_(o.index_),
      lines_(o.lines_),
      marked_at_(o.marked_at_),
      marked_ms_(o.marked_ms_) {
  o.f_ = nullptr;
  o.index_ = nullptr;
}
Transcript& Transcript::operator=(Transcript&& o) noexcept {
  std::swap(f_, o.f_);
  std::swap(filter_, o.filter_);
  std::swap(cap_, o.cap_);
  std::swap(written_, o.written_);
  std::swap(dropped_, o.dropped_);
  std::swap(error_, o.error_);
  std::swap(index_, o.index_);
  std::swap(lines_, o.lines_);
  std::swap(marked_at_, o.marked_at_);
  std::swap(marked_ms_, o.marked_ms_);
  return *this;
}
Transcript::~Transcript() {
  close();
}

void Transcript::close() {
  if (!f_) return;
  if (filter_) put(filter_({}, Drain::last));
  if (dropped_ > 0) {
    std::string note =
        fmt::format("\n[awaywork: {} more bytes were left out of this transcript]\n", dropped_);
    emit(note);
  }
  if (std::fclose(f_) != 0 && error_ == 0) error_ = errno;
  f_ = nullptr;
  if (index_) std::fclose(index_);
  index_ = nullptr;
}

void Transcript::heading(const std::string& text, const std::string& phase) {
  if (!f_) return;
  if (!phase.empty()) {
    // Nothing held back: the heading's bytes follow at once, so its line begins after its
    // leading newline, at a byte and line known here.
    if (filter_) put(filter_({}, Drain::last));
    if (cap_ == 0 || written_ < cap_) mark(true, phase, written_ + 1, lines_ + 1);
  }
  std::string line = "\n── " + text + " ──\n";
  write(line);
}

void Transcript::mark(bool phase, const std::string& name, uint64_t offset, uint64_t line) {
  if (!index_) return;
  TranscriptMark m;
  m.kind = phase ? TranscriptMark::Kind::phase : TranscriptMark::Kind::time;
  m.offset = offset;
  m.line = line;
  m.ms = std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count();
  m.phase = name;
  std::string text = format_mark(m);
  // A reader takes only whole lines: written whole, and at once (the live log reads it).
  if (std::fwrite(text.data(), 1, text.size(), index_) != text.size() || std::fflush(index_) != 0) {
    std::fclose(index_);  // a partial index would mislead: none from here on
    index_ = nullptr;
    return;
  }
  marked_at_ = offset;
  marked_ms_ = m.ms;
}

void Transcript::write(std::string_view bytes) {
  if (!f_) return;
  put(filter_ ? filter_(bytes, Drain::more) : std::string(bytes));
  // A chunk that ends a line: its end is written now, not when the next output (or 200 ms of
  // quiet) comes, so a line shows whole at once while output keeps flowing (issue 25: every line
  // of a phase printing each 100 ms waited 100 ms for its last bytes). No token pattern spans a
  // newline, and what could begin a secret value (one may hold newlines) stays held as at a pause.
  if (filter_ && !bytes.empty() && bytes.back() == '\n') put(filter_({}, Drain::pause));
  // The live log (serve/) reads the file as it grows: no byte waits in a buffer.
  if (std::fflush(f_) != 0 && error_ == 0) error_ = errno;
}

void Transcript::settle() {
  if (!f_ || !filter_) return;
  put(filter_({}, Drain::pause));
  if (std::fflush(f_) != 0 && error_ == 0) error_ = errno;
}

void Transcript::emit(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size() && error_ == 0)
    error_ = errno ? errno : EIO;
}

// Redacted bytes to the file, up to the cap; the first byte past it writes the cut's notice.
void Transcript::put(std::string_view out) {
  if (out.empty()) return;
  // A heading's mark is at its line, one byte past where its bytes begin: none goes before it.
  if (index_ && (cap_ == 0 || written_ < cap_) && written_ >= marked_at_) {
    int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    if (marked_ms_ == 0 || now - marked_ms_ >= kStampEveryMs || now < marked_ms_ ||
        written_ - marked_at_ >= kStampBytes)
      mark(false, "", written_, lines_);
  }
  if (cap_ == 0 || written_ + out.size() <= cap_) {
    emit(out);
    written_ += out.size();
    lines_ += static_cast<uint64_t>(std::count(out.begin(), out.end(), '\n'));
    return;
  }
  uint64_t room = written_ < cap_ ? cap_ - written_ : 0;
  if (room > 0) {
    emit(out.substr(0, room));
    lines_ += static_cast<uint64_t>(std::count(out.begin(), out.begin() + room, '\n'));
  }
  if (dropped_ == 0) {
    std::string note = fmt::format(
        "\n[awaywork: the transcript reached max_transcript_bytes ({} bytes) and was cut here; "
        "the unit goes on]\n",
        cap_);
    emit(note);
  }
  written_ = cap_;
  dropped_ += out.size() - room;
}

void Transcript::flush() {
  if (f_ && std::fflush(f_) != 0 && error_ == 0) error_ = errno;
}

}  // namespace aw
