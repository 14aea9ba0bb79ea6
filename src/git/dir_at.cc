#include "git/dir_at.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "base/unique_fd.h"

namespace aw {

int open_dir_at(int dirfd, const std::string& name) {
  int fd = ::openat(dirfd, name.c_str(), kDirAtFlags);
  if (fd < 0 && errno == EACCES && ::fchmodat(dirfd, name.c_str(), 0700, 0) == 0)
    fd = ::openat(dirfd, name.c_str(), kDirAtFlags);
  return fd;
}

std::vector<DirEntry> entries_in(int dirfd) {
  auto read = read_entries(dirfd, "");
  return read ? std::move(*read) : std::vector<DirEntry>{};
}

Result<std::vector<DirEntry>> read_entries(int dirfd, const std::string& shown) {
  int dup = ::dup(dirfd);
  if (dup < 0) return fail("read {}: {}", shown, errno_text(errno));
  DIR* d = ::fdopendir(dup);
  if (!d) {
    int err = errno;
    ::close(dup);
    return fail("read {}: {}", shown, errno_text(err));
  }
  std::vector<DirEntry> out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back({std::move(n), e->d_type});
  }
  ::closedir(d);
  return out;
}

Status remove_at(int dirfd, const std::string& name, const std::string& shown, int depth) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status{} : fail("lstat {}: {}", shown, errno_text(errno));
  if (S_ISDIR(st.st_mode)) {
    if (depth > kMaxDirAtDepth)
      return fail("{} is more than {} folders deep; refused", shown, kMaxDirAtDepth);
    UniqueFd sub(open_dir_at(dirfd, name));
    if (sub.get() < 0) return fail("open {}: {}", shown, errno_text(errno));
    if ((st.st_mode & 0700) != 0700) (void)::fchmod(sub.get(), 0700);
    for (const auto& n : entries_in(sub.get()))
      AW_CHECK(remove_at(sub.get(), n.name, shown + "/" + n.name, depth + 1));
    if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0)
      return fail("remove {}: {}", shown, errno_text(errno));
    return {};
  }
  if (::unlinkat(dirfd, name.c_str(), 0) != 0)
    return fail("remove {}: {}", shown, errno_text(errno));
  return {};
}

}  // namespace aw
