#include "isolate/user/worker_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>

#include "base/fs.h"

namespace aw {

namespace {

// The locks this process holds, by fd: what worker_locked_here answers from.
std::mutex held_mutex;
std::map<int, std::string>& held() {
  static std::map<int, std::string> locks;
  return locks;
}

std::string lock_path(const std::string& state_dir, const std::string& worker) {
  return state_dir + "/worker-" + worker + ".lock";
}

}  // namespace

Result<int> lock_worker(const std::string& state_dir, const std::string& worker) {
  std::string path = lock_path(state_dir, worker);
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
  std::lock_guard<std::mutex> g(held_mutex);
  held()[fd] = path;
  return fd;
}

void unlock_worker(int fd) {
  {
    std::lock_guard<std::mutex> g(held_mutex);
    held().erase(fd);
  }
  if (fd >= 0) ::close(fd);
}

bool worker_locked_here(const std::string& state_dir, const std::string& worker) {
  std::string path = lock_path(state_dir, worker);
  std::lock_guard<std::mutex> g(held_mutex);
  for (const auto& [fd, p] : held())
    if (p == path) return true;
  return false;
}

}  // namespace aw
