#include "isolate/user/worker_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"

namespace aw {

Result<int> lock_worker(const std::string& state_dir, const std::string& worker) {
  std::string path = state_dir + "/worker-" + worker + ".lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      return fail(
          "another unit is running as worker {} (lock {}); isolation `user` runs one "
          "unit at a time per worker user",
          worker, path);
    return fail("lock {}: {}", path, errno_text(e));
  }
  return fd;
}

}  // namespace aw
