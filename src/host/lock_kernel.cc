// Links in sticky folders (/tmp) followed only by their owner: without protected_symlinks the
// worker plants /tmp/x -> the runner's file and waits for a root or runner process to write it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"

namespace aw {

namespace {

constexpr const char* kPersist = "/etc/sysctl.d/60-awaywork.conf";
constexpr const char* kPersistText = "fs.protected_hardlinks = 1\nfs.protected_symlinks = 1\n";

int read_value(const std::string& path) {
  auto v = read_file(path, 64);
  return v ? std::atoi(v->c_str()) : -1;
}

// Writes "1": an errno when the kernel (or a read-only /proc/sys, as in a container) refuses.
int set_on(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = ::write(fd, "1\n", 2) == 2 ? 0 : errno;
  ::close(fd);
  return err;
}

}  // namespace

Status lock_kernel(const std::string& sysctl_dir, std::vector<LockChange>& out) {
  std::vector<LockChange> mine;
  for (const char* key : {"protected_hardlinks", "protected_symlinks"}) {
    std::string path = sysctl_dir + "/" + key;
    int v = read_value(path);
    if (v == 1 || v == 2) continue;
    if (int err = set_on(path); err != 0 || read_value(path) < 1)
      return fail(
          "fs.{0} is {1} and cannot be set here ({2}): a kernel that follows links planted in "
          "sticky folders is refused; set it on the host: sysctl -w fs.{0}=1",
          key, v, err ? errno_text(err) : "the value did not change");
    mine.push_back({LockStep::kernel, fmt::format("fs.{} {} -> 1", key, v)});
  }
  // Persisted only when this run had to set it: a kernel already protected is not ours to pin.
  if (!mine.empty() && read_or_empty(kPersist) != kPersistText) {
    AW_CHECK(replace_file(kPersist, kPersistText, 0644));
    mine.push_back({LockStep::kernel, std::string("wrote ") + kPersist});
  }
  out.insert(out.end(), mine.begin(), mine.end());
  return {};
}

}  // namespace aw
