#include "unit/transcript.h"

#include <fcntl.h>
#include <unistd.h>

#include "base/fs.h"

namespace aw {

Result<Transcript> Transcript::open(const std::string& path, Filter filter) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("open transcript {}: {}", path, errno_text(errno));
  std::FILE* f = ::fdopen(fd, "a");
  if (!f) {
    ::close(fd);
    return fail("open transcript {}: {}", path, errno_text(errno));
  }
  return Transcript(f, std::move(filter));
}

Transcript::Transcript(Transcript&& o) noexcept : f_(o.f_), filter_(std::move(o.filter_)) {
  o.f_ = nullptr;
}
Transcript& Transcript::operator=(Transcript&& o) noexcept {
  std::swap(f_, o.f_);
  std::swap(filter_, o.filter_);
  return *this;
}
Transcript::~Transcript() {
  close();
}

void Transcript::close() {
  if (!f_) return;
  if (filter_) {
    std::string rest = filter_({}, true);
    std::fwrite(rest.data(), 1, rest.size(), f_);
  }
  std::fclose(f_);
  f_ = nullptr;
}

void Transcript::heading(const std::string& text) {
  std::string line = "\n── " + text + " ──\n";
  write(line);
}

void Transcript::write(std::string_view bytes) {
  if (!f_) return;
  std::string out = filter_ ? filter_(bytes, false) : std::string(bytes);
  if (out.empty()) return;
  std::fwrite(out.data(), 1, out.size(), f_);
  std::fflush(f_);  // the live log (serve/) reads the file as it grows: no byte waits in a buffer
}

void Transcript::flush() {
  if (f_) std::fflush(f_);
}

}  // namespace aw
