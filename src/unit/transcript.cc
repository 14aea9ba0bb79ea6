#include "unit/transcript.h"

#include <fcntl.h>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>

#include "base/fs.h"

namespace aw {

Result<Transcript> Transcript::open(const std::string& path, Filter filter, uint64_t max_bytes) {
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
  return t;
}

Transcript::Transcript(Transcript&& o) noexcept
    : f_(o.f_),
      filter_(std::move(o.filter_)),
      cap_(o.cap_),
      written_(o.written_),
      dropped_(o.dropped_),
      error_(o.error_) {
  o.f_ = nullptr;
}
Transcript& Transcript::operator=(Transcript&& o) noexcept {
  std::swap(f_, o.f_);
  std::swap(filter_, o.filter_);
  std::swap(cap_, o.cap_);
  std::swap(written_, o.written_);
  std::swap(dropped_, o.dropped_);
  std::swap(error_, o.error_);
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
}

void Transcript::heading(const std::string& text) {
  std::string line = "\n── " + text + " ──\n";
  write(line);
}

void Transcript::write(std::string_view bytes) {
  if (!f_) return;
  put(filter_ ? filter_(bytes, Drain::more) : std::string(bytes));
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
  if (cap_ == 0 || written_ + out.size() <= cap_) {
    emit(out);
    written_ += out.size();
    return;
  }
  uint64_t room = written_ < cap_ ? cap_ - written_ : 0;
  if (room > 0) emit(out.substr(0, room));
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
