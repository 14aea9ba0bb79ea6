#include "isolate/container/setid.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fs.h"

namespace aw {

namespace {

// Walks by file descriptor (openat with O_NOFOLLOW|O_DIRECTORY), so a link cannot redirect the walk
// outside dir, whatever its name says.
Status walk(int dirfd, const std::string& shown, int depth, int& changed) {
  if (depth > 4096) return fail("{}: too deep", shown);
  struct stat st {};
  if (::fstat(dirfd, &st) != 0) return fail("stat {}: {}", shown, errno_text(errno));
  if (st.st_mode & (S_ISUID | S_ISGID)) {
    if (::fchmod(dirfd, st.st_mode & 07777 & ~(S_ISUID | S_ISGID)) != 0)
      return fail("chmod {}: {}", shown, errno_text(errno));
    ++changed;
  }
  int fd = ::dup(dirfd);
  if (fd < 0) return fail("dup: {}", errno_text(errno));
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return fail("opendir {}: {}", shown, errno_text(errno));
  }
  Status result;
  while (dirent* e = ::readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    std::string path = shown + "/" + e->d_name;
    struct stat cs {};
    if (::fstatat(dirfd, e->d_name, &cs, AT_SYMLINK_NOFOLLOW) != 0) {
      result = fail("stat {}: {}", path, errno_text(errno));
      break;
    }
    if (S_ISDIR(cs.st_mode)) {
      int sub = ::openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        result = fail("open {}: {}", path, errno_text(errno));
        break;
      }
      result = walk(sub, path, depth + 1, changed);
      ::close(sub);
      if (!result) break;
    } else if (S_ISREG(cs.st_mode) && (cs.st_mode & (S_ISUID | S_ISGID))) {
      // Links have no bits of their own; devices and fifos cannot be made by a capless owner.
      if (::fchmodat(dirfd, e->d_name, cs.st_mode & 07777 & ~(S_ISUID | S_ISGID), 0) != 0) {
        result = fail("chmod {}: {}", path, errno_text(errno));
        break;
      }
      ++changed;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

Result<int> drop_setid_bits(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", dir, errno_text(errno));
  int changed = 0;
  auto s = walk(fd, dir, 0, changed);
  ::close(fd);
  if (!s) return tl::unexpected<Error>(s.error());
  return changed;
}

}  // namespace aw
