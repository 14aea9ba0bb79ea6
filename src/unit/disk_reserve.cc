#include "unit/disk_reserve.h"

#include <fcntl.h>
#include <unistd.h>

namespace aw {

DiskReserve DiskReserve::make(const std::string& path, uint64_t bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return DiskReserve("");
  // Allocated, not sparse: the blocks are taken now and given back by release().
  bool ok = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    return DiskReserve("");
  }
  return DiskReserve(path);
}

void DiskReserve::release() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  path_.clear();
}

}  // namespace aw
