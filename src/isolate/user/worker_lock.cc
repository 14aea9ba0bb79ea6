#include "isolate/user/worker_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

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

// Who holds the lock, as its holder wrote it ("" for a unit, which writes nothing).
std::string holder_of(int fd) {
  char buf[256];
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool plugin_holds(int fd) { return holder_of(fd).rfind(kPluginHolder, 0) == 0; }

}  // namespace

Result<int> lock_worker(const std::string& state_dir, const std::string& worker,
                        const std::string& holder) {
  std::string path = lock_path(state_dir, worker);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  // A plugin call holds the worker for one call at most: wait for it rather than fail a unit (or
  // another call) that starts meanwhile. Anything else holding it is a unit: refused at once.
  auto deadline = std::chrono::steady_clock::now() + kPluginHoldMax;
  int rc = ::flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EWOULDBLOCK && plugin_holds(fd) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  }
  if (rc != 0) {
    int e = errno;
    std::string who = holder_of(fd);
    ::close(fd);
    if (e == EWOULDBLOCK && who.rfind(kPluginHolder, 0) == 0)
      return fail("{} still holds worker {} (lock {}) after {} s", who, worker, path,
                  std::chrono::duration_cast<std::chrono::seconds>(kPluginHoldMax).count());
    if (e == EWOULDBLOCK)
      return fail(
          "another unit is running as worker {} (lock {}); isolation `user` runs one "
          "unit at a time per worker user",
          worker, path);
    return fail("lock {}: {}", path, errno_text(e));
  }
  // What a waiting unit reads: only the holder writes, under the lock.
  if (::ftruncate(fd, 0) != 0 ||
      (!holder.empty() &&
       ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size()))) {
    int e = errno;
    ::close(fd);
    return fail("write {}: {}", path, errno_text(e));
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
  if (fd < 0) return;
  (void)!::ftruncate(fd, 0);  // still held: nobody reads a stale holder
  ::close(fd);
}

bool worker_locked_here(const std::string& state_dir, const std::string& worker) {
  std::string path = lock_path(state_dir, worker);
  std::lock_guard<std::mutex> g(held_mutex);
  for (const auto& [fd, p] : held())
    if (p == path) return true;
  return false;
}

}  // namespace aw
