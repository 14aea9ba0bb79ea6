// One walk of a file system like `find / -xdev`, by file descriptors (openat with O_NOFOLLOW, the
// mode changed through the descriptor or with AT_SYMLINK_NOFOLLOW): a link is never followed, a
// directory swapped for a link between the look and the change is not entered, and no other
// mount is crossed. What a worker must not find: a world-writable path outside sticky folders
// (a toolcache `gh` to replace, a folder in PATH to plant in), or a default ACL that makes every
// new file there writable by others.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "base/fs.h"
#include "host/lock.h"

namespace aw {

namespace {

constexpr const char* kDefaultAcl = "system.posix_acl_default";
// linux/posix_acl_xattr.h: a version word, then {u16 tag, u16 perm, u32 id} entries, little-endian.
constexpr uint16_t kAclOther = 0x20, kAclWrite = 0x02;

bool acl_grants_others_write(const unsigned char* b, size_t n) {
  for (size_t i = 4; i + 8 <= n; i += 8) {
    uint16_t tag = b[i] | (b[i + 1] << 8), perm = b[i + 2] | (b[i + 3] << 8);
    if (tag == kAclOther && (perm & kAclWrite)) return true;
  }
  return false;
}

std::string join(const std::string& dir, const char* name) {
  std::string out = dir;
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

class Walker {
 public:
  Walker(dev_t dev, WalkSteps steps, std::vector<LockChange>& out)
      : dev_(dev), steps_(steps), out_(out) {}

  uint64_t seen() const { return seen_; }

  // fd: an open directory at path, of the walked file system; closed here.
  Status directory(int fd, const std::string& path, const struct stat& st) {
    ++seen_;
    Status s = own_modes(fd, path, st);
    if (s) s = entries(fd, path);
    ::close(fd);
    return s;
  }

 private:
  Status own_modes(int fd, const std::string& path, const struct stat& st) {
    if (steps_.clear_writable && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
      mode_t mode = st.st_mode & 07777 & ~S_IWOTH;
      if (::fchmod(fd, mode) != 0) return fail("chmod {}: {}", path, errno_text(errno));
      changed(LockStep::walk, path, st.st_mode, mode);
    }
    if (!steps_.clear_acls) return {};
    unsigned char acl[1024];
    ssize_t n = ::fgetxattr(fd, kDefaultAcl, acl, sizeof acl);
    if (n < 0 && errno != ENODATA && errno != ENOTSUP && errno != ERANGE)
      return fail("read the default ACL of {}: {}", path, errno_text(errno));
    // ERANGE: more entries than fit, which a hand-made ACL granting others write may well be.
    if ((n < 0 && errno == ERANGE) || (n > 0 && acl_grants_others_write(acl, n))) {
      if (::fremovexattr(fd, kDefaultAcl) != 0)
        return fail("remove the default ACL of {}: {}", path, errno_text(errno));
      out_.push_back({LockStep::acl, path + ": removed a default ACL granting others write"});
    }
    return {};
  }

  Status entries(int fd, const std::string& path) {
    int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR* d = dup < 0 ? nullptr : ::fdopendir(dup);
    if (!d) {
      if (dup >= 0) ::close(dup);
      return fail("read {}: {}", path, errno_text(errno));
    }
    Status s;
    while (struct dirent* e = ::readdir(d)) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      if (e->d_type == DT_LNK) {
        ++seen_;
        continue;
      }
      s = entry(fd, path, e->d_name);
      if (!s) break;
    }
    ::closedir(d);
    return s;
  }

  Status entry(int dirfd, const std::string& dir, const char* name) {
    struct stat st {};
    if (::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) return {};  // gone since readdir
      return fail("stat {}: {}", join(dir, name), errno_text(errno));
    }
    if (S_ISLNK(st.st_mode) || st.st_dev != dev_) return {};  // a link, or another mount
    if (S_ISDIR(st.st_mode)) {
      int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) {
        if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR) return {};  // swapped
        return fail("open {}: {}", join(dir, name), errno_text(errno));
      }
      struct stat now {};
      if (::fstat(fd, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
        ::close(fd);
        return {};  // replaced since the look: not the directory that was looked at
      }
      return directory(fd, join(dir, name), now);
    }
    ++seen_;
    if (!steps_.clear_writable || !(st.st_mode & S_IWOTH)) return {};
    mode_t mode = st.st_mode & 07777 & ~S_IWOTH;
    // AT_SYMLINK_NOFOLLOW: glibc changes the mode through an O_PATH descriptor and refuses a link.
    if (::fchmodat(dirfd, name, mode, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT || errno == EOPNOTSUPP) return {};  // gone, or swapped for a link
      return fail("chmod {}: {}", join(dir, name), errno_text(errno));
    }
    changed(LockStep::walk, join(dir, name), st.st_mode, mode);
    return {};
  }

  void changed(LockStep step, const std::string& path, mode_t from, mode_t to) {
    out_.push_back({step, fmt::format("{}: {:04o} -> {:04o}", path, from & 07777, to)});
  }

  dev_t dev_;
  WalkSteps steps_;
  std::vector<LockChange>& out_;
  uint64_t seen_ = 0;
};

}  // namespace

Result<uint64_t> lock_walk(const std::string& root, WalkSteps steps, std::vector<LockChange>& out) {
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", root, errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return fail("stat {}: {}", root, errno_text(errno));
  }
  Walker w(st.st_dev, steps, out);
  AW_CHECK(w.directory(fd, root, st));
  return w.seen();
}

}  // namespace aw
