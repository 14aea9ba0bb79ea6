#include "git/dir_at.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace aw {

int open_dir_at(int dirfd, const std::string& name) {
  int fd = ::openat(dirfd, name.c_str(), kDirAtFlags);
  if (fd < 0 && errno == EACCES && ::fchmodat(dirfd, name.c_str(), 0700, 0) == 0)
    fd = ::openat(dirfd, name.c_str(), kDirAtFlags);
  return fd;
}

std::vector<DirEntry> entries_in(int dirfd) {
  std::vector<DirEntry> out;
  int dup = ::dup(dirfd);
  if (dup < 0) return out;
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return out;
  }
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back({std::move(n), e->d_type});
  }
  ::closedir(d);
  return out;
}

}  // namespace aw
