// An open file descriptor closed on every path out (and moved, never copied).
//
//   UniqueFd dir(::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
//   if (!dir) return fail(...);   ::fstat(dir.fd, &st);
#pragma once

#include <unistd.h>

namespace aw {

struct UniqueFd {
  int fd = -1;
  explicit UniqueFd(int f = -1) : fd(f) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd = o.fd;
      o.fd = -1;
    }
    return *this;
  }
  ~UniqueFd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int get() const { return fd; }
  explicit operator bool() const { return fd >= 0; }
};

}  // namespace aw
