#include "isolate/user/shared_folders.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "isolate/user/leftovers.h"

namespace aw {

namespace {

bool swept(const std::string& path) {
  for (const auto& r : leftover_roots())
    if (path == r || path.rfind(r + "/", 0) == 0) return true;
  return false;
}

// Folders only (readdir's d_type spares a stat of every file); one descriptor per level.
void walk_folders(int dfd, const std::string& path, dev_t dev, int depth, size_t cap,
                  std::vector<std::string>& out) {
  if (depth > 40 || out.size() >= cap) return;
  int dup = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  DIR* d = dup < 0 ? nullptr : ::fdopendir(dup);
  if (!d) {
    if (dup >= 0) ::close(dup);
    return;
  }
  while (struct dirent* e = ::readdir(d)) {
    if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
    if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
    std::string child = (path == "/" ? "" : path) + "/" + e->d_name;
    struct stat st {};
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_dev != dev || swept(child))
      continue;
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) && out.size() < cap) out.push_back(child);
    int c = ::openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (c < 0) continue;
    walk_folders(c, child, dev, depth + 1, cap, out);
    ::close(c);
  }
  ::closedir(d);
}

}  // namespace

std::vector<std::string> open_shared_folders(const std::string& root, size_t cap) {
  std::vector<std::string> out;
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  if (fd < 0) return out;
  if (::fstat(fd, &st) == 0) {
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX) && !swept(root)) out.push_back(root);
    walk_folders(fd, root, st.st_dev, 0, cap, out);
  }
  ::close(fd);
  std::sort(out.begin(), out.end());
  return out;
}

Check shared_folders_check(const std::string& root) {
  auto found = open_shared_folders(root);
  std::string name = fmt::format(
      "no world-writable folder without the sticky bit on the root file system (outside {})",
      fmt::format("/tmp, /var/tmp, /dev/shm"));
  if (found.empty()) return {name, true, "none found", ""};
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "'" : " '") + f + "'";
  return {name, true,
          fmt::format("warning; awaywork sweeps what the worker leaves there after every unit, "
                      "but without the sticky bit the worker can also delete or replace your "
                      "files and other users' there: {}; fix: sudo chmod o-w {} (or sudo chmod +t "
                      "for a folder every user must write to)",
                      list, list),
          ""};
}

}  // namespace aw
