// close_permissions: chmod -R u+rwX,go-rwx without ever following a link the worker planted.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <utility>
#include <vector>

#include "isolate/user/handoff.h"

namespace aw {

namespace {

struct Walk {
  uid_t owner;
  dev_t dev;
  // Non-directories with more than one link: how many links the walk met, and how many exist.
  std::map<std::pair<dev_t, ino_t>, std::pair<nlink_t, std::string>> multi;
  // Multi-link files are chmodded only once every link was met inside: a file also linked from
  // outside must not be touched at all.
  std::vector<std::pair<std::string, struct stat>> deferred;
};

mode_t wanted(const struct stat& st) {
  mode_t m = st.st_mode & 0700;  // go-rwx and no setuid, setgid or sticky bit
  if (S_ISDIR(st.st_mode)) return m | 0700;
  return m | 0600 | ((st.st_mode & 0111) ? 0100 : 0);
}

Status walk_dir(Walk& w, int dfd, const std::string& path) {
  int dup = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return fail("dup {}: {}", path, errno_text(errno));
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return fail("opendir {}: {}", path, errno_text(errno));
  }
  Status result;
  errno = 0;
  // The entry's path is only spelled out for a message, a folder to enter or a multi-link file:
  // a 100k-file clone is mostly files that need none of those.
  while (struct dirent* e = ::readdir(d)) {
    const char* name = e->d_name;
    if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
    auto sub = [&] { return path + "/" + name; };
    struct stat st {};
    if (::fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      result = fail("lstat {}: {}", sub(), errno_text(errno));
      break;
    }
    if (st.st_uid != w.owner) {
      result = fail("{} is owned by uid {}, not the owner, after the chown back", sub(), st.st_uid);
      break;
    }
    if (S_ISLNK(st.st_mode)) continue;  // a link's own mode means nothing; never followed
    if (st.st_dev != w.dev) {
      result = fail("{} is on another filesystem", sub());
      break;
    }
    if (S_ISDIR(st.st_mode)) {
      int cfd = ::openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (cfd < 0 && errno == EACCES && ::fchmodat(dfd, name, 0700, 0) == 0)
        cfd = ::openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (cfd < 0) {
        result = fail("open {}: {}", sub(), errno_text(errno));
        break;
      }
      if ((st.st_mode & 07777) != wanted(st) && ::fchmod(cfd, wanted(st)) != 0) {
        result = fail("chmod {}: {}", sub(), errno_text(errno));
        ::close(cfd);
        break;
      }
      result = walk_dir(w, cfd, sub());
      ::close(cfd);
      if (!result) break;
      continue;
    }
    if (st.st_nlink > 1) {
      auto& entry = w.multi[{st.st_dev, st.st_ino}];
      if (entry.first == 0) entry.second = sub();
      ++entry.first;
      if (entry.first == st.st_nlink) w.multi.erase({st.st_dev, st.st_ino});
      if ((st.st_mode & 07777) != wanted(st)) w.deferred.emplace_back(sub(), st);
      continue;
    }
    // Not a link (checked above), and nothing of the worker's runs now: fchmodat cannot be raced.
    if ((st.st_mode & 07777) != wanted(st) && ::fchmodat(dfd, name, wanted(st), 0) != 0) {
      result = fail("chmod {}: {}", sub(), errno_text(errno));
      break;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace

Status close_permissions(const std::vector<UnitFolder>& folders, uid_t owner) {
  Walk w{owner, 0, {}, {}};
  for (const auto& f : folders) {
    int fd = ::open(f.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return fail("open {}: {}", f.path, errno_text(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_dev != f.id.dev || st.st_ino != f.id.ino) {
      ::close(fd);
      return fail("{} is not the unit's folder any more", f.path);
    }
    if (st.st_uid != owner) {
      ::close(fd);
      return fail("{} is owned by uid {}, not the owner", f.path, st.st_uid);
    }
    w.dev = st.st_dev;
    // The top folder first at 700 so that the walk can enter everything; 711 at the end.
    Status s = ::fchmod(fd, 0700) == 0 ? walk_dir(w, fd, f.path)
                                       : fail("chmod {}: {}", f.path, errno_text(errno));
    if (s && ::fchmod(fd, 0711) != 0) s = fail("chmod {}: {}", f.path, errno_text(errno));
    ::close(fd);
    AW_CHECK(s);
  }
  if (!w.multi.empty()) {
    const auto& [count, path] = w.multi.begin()->second;
    return fail("{} is also linked from outside the unit's folders ({} of its links are inside)",
                path, count);
  }
  // Every directory on these paths was walked above (no links) and nothing of the worker's runs.
  for (const auto& [path, was] : w.deferred) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || st.st_ino != was.st_ino || S_ISLNK(st.st_mode))
      return fail("{} changed during the walk", path);
    if (::chmod(path.c_str(), wanted(was)) != 0)
      return fail("chmod {}: {}", path, errno_text(errno));
  }
  return {};
}

}  // namespace aw
