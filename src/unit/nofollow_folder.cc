// Folders of a hostile tree, never through a link (nofollow_folder.h).
#include "unit/nofollow_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace aw {

int open_folder_at(int dirfd, const std::string& name) {
  return ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

UniqueFd open_below(int root, const std::string& rel) {
  UniqueFd at(::dup(root));
  for (size_t from = 0; at && from < rel.size();) {
    size_t slash = rel.find('/', from);
    size_t end = slash == std::string::npos ? rel.size() : slash;
    at = UniqueFd(open_folder_at(at.get(), rel.substr(from, end - from)));
    from = end + 1;
  }
  return at;
}

std::string parent_of(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

std::string base_of(const std::string& rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

std::vector<std::string> names_in(int dirfd) {
  std::vector<std::string> names;
  int fd = ::dup(dirfd);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (!d) {
    if (fd >= 0) ::close(fd);
    return names;
  }
  ::rewinddir(d);  // a dup shares its position with dirfd: read from the start
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace aw
