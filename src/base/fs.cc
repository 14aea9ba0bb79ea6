#include "base/fs.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace aw {

std::string errno_text(int err) {
  return fmt::format("{} (errno {})", std::strerror(err), err);
}

Result<DirId> dir_id(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fail("lstat {}: {}", path, errno_text(errno));
  if (S_ISLNK(st.st_mode)) return fail("{} is a symbolic link, expected a directory", path);
  if (!S_ISDIR(st.st_mode)) return fail("{} is not a directory", path);
  return DirId{st.st_dev, st.st_ino};
}

Result<std::string> read_file(const std::string& path, size_t cap) {
  return read_file(path, ReadOptions{cap, false}, nullptr);
}

Result<std::string> read_file(const std::string& path, const ReadOptions& opts,
                              ReadProblem* problem) {
  ReadProblem local;
  ReadProblem& p = problem ? *problem : local;
  p = {};
  int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;  // a FIFO must not block us
  int fd = ::open(path.c_str(), opts.follow_final_link ? flags : flags | O_NOFOLLOW);
  if (fd < 0) {
    p = {ReadFailure::open, errno};
    return fail("open {}: {}", path, errno_text(p.err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    p.what = ReadFailure::not_regular;
    return fail("{} is not a regular file", path);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      p = {ReadFailure::read, errno};
      ::close(fd);
      return fail("read {}: {}", path, errno_text(p.err));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > opts.cap) {
      ::close(fd);
      p.what = ReadFailure::too_large;
      return fail("{} is larger than the {} byte limit", path, opts.cap);
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string read_or_empty(const std::string& path) {
  return read_file(path).value_or("");
}

Status write_fd(int fd, std::string_view data, const std::string& shown) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write {}: {}", shown, errno_text(errno));
    off += static_cast<size_t>(n);
  }
  return {};
}

Status write_file(const std::string& path, const std::string& data, mode_t mode) {
  // Unlink first so that a link planted at path is replaced, never written through.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return fail("unlink {}: {}", path, errno_text(errno));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return fail("create {}: {}", path, errno_text(errno));
  if (auto written = write_fd(fd, data, path); !written) {
    ::close(fd);
    return written;
  }
  if (::fchmod(fd, mode) != 0 || ::close(fd) != 0)
    return fail("finish {}: {}", path, errno_text(errno));
  return {};
}

Status replace_file(const std::string& path, const std::string& data, mode_t mode) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  AW_CHECK(write_file(tmp, data, mode));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return fail("rename {} over {}: {}", tmp, path, errno_text(e));
  }
  return {};
}

Status make_dirs(const std::string& path, mode_t mode) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    cur = path.substr(0, i);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), mode) != 0 && errno != EEXIST)
      return fail("mkdir {}: {}", cur, errno_text(errno));
  }
  auto id = dir_id(path);
  if (!id) return tl::unexpected<Error>(id.error());
  return {};
}

Status remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);  // does not follow symbolic links
  if (ec) return fail("remove {}: {}", path, ec.message());
  return {};
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace aw
