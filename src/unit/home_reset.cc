// HOME's CLI folders between rounds (home_reset.h). The round that ran before is hostile and
// fs.protected_symlinks may be 0: every step is relative to a folder fd opened with O_NOFOLLOW,
// a link is read and written as a link, and whatever is not a folder, file or link is removed and
// not put back.
#include "unit/home_reset.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "unit/nofollow_folder.h"

namespace aw {

// git's own (.gitconfig, .config/git/): every phase's git reads neither (GIT_CONFIG_GLOBAL is
// /dev/null, unit/steps.h), but a tool with a git library of its own may.
const std::vector<std::string> kAgentHomePaths = {
    ".claude",    ".claude.json",     ".codex",
    ".gemini",    ".config/opencode", ".local/share/opencode",
    ".opencode",  ".agents",          ".cursor",
    ".gitconfig", ".config/git"};

namespace {

using Entry = HomeSnapshot::Entry;

constexpr size_t kMaxBytes = 64u << 20;
constexpr size_t kMaxEntries = 20000;
constexpr int kMaxDepth = 64;

// The lent Codex login is the lease's: it saves a genuine refresh back at the unit's end.
bool kept(const std::string& rel) {
  return rel == ".codex/auth.json";
}

bool same(const Entry& a, const Entry& b) {
  return a.path == b.path && a.type == b.type && a.mode == b.mode && a.data == b.data;
}

struct Budget {
  size_t bytes = 0, entries = 0;
};

// "a/b/c" -> {"a", "a"}, {"b", "a/b"}, {"c", "a/b/c"}: each part and the path up to it.
std::vector<std::pair<std::string, std::string>> parts_of(const std::string& rel) {
  std::vector<std::pair<std::string, std::string>> parts;
  for (size_t from = 0; from < rel.size();) {
    size_t slash = rel.find('/', from);
    size_t end = slash == std::string::npos ? rel.size() : slash;
    parts.emplace_back(rel.substr(from, end - from), rel.substr(0, end));
    from = end + 1;
  }
  return parts;
}

Status read_tree(int dirfd, const std::string& name, const std::string& rel, int depth, Budget& b,
                 std::vector<Entry>& out);

Status read_children(int dirfd, const std::string& name, const std::string& rel, int depth,
                     Budget& b, std::vector<Entry>& out) {
  if (depth > kMaxDepth) return fail("~/{}: more than {} folders deep", rel, kMaxDepth);
  UniqueFd fd(open_folder_at(dirfd, name));
  if (fd.get() < 0) return fail("open ~/{}: {}", rel, errno_text(errno));
  for (const auto& n : names_in(fd.get()))
    AW_CHECK(read_tree(fd.get(), n, rel + "/" + n, depth + 1, b, out));
  return {};
}

Result<std::string> read_file_at(int dirfd, const std::string& name, const std::string& rel,
                                 const struct stat& st, Budget& b) {
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat now {};
  if (fd.get() < 0 || ::fstat(fd.get(), &now) != 0 || now.st_ino != st.st_ino)
    return fail("read ~/{}: it changed while it was read", rel);
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("read ~/{}: {}", rel, errno_text(errno));
    if (n == 0) return data;
    b.bytes += static_cast<size_t>(n);
    if (b.bytes > kMaxBytes) return fail("~/{}: the agent's HOME paths hold more than 64 MiB", rel);
    data.append(buf, static_cast<size_t>(n));
  }
}

// name (in dirfd) and, for a folder, everything below it, parents first. Absent: nothing.
Status read_tree(int dirfd, const std::string& name, const std::string& rel, int depth, Budget& b,
                 std::vector<Entry>& out) {
  if (kept(rel)) return {};
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status{} : fail("~/{}: {}", rel, errno_text(errno));
  if (++b.entries > kMaxEntries) return fail("~/{}: more than {} entries", rel, kMaxEntries);
  Entry e{rel, static_cast<mode_t>(st.st_mode & S_IFMT), static_cast<mode_t>(st.st_mode & 07777),
          ""};
  if (S_ISLNK(st.st_mode)) {
    char buf[4096];
    ssize_t n = ::readlinkat(dirfd, name.c_str(), buf, sizeof buf);
    if (n < 0) return fail("read the link ~/{}: {}", rel, errno_text(errno));
    e.data.assign(buf, static_cast<size_t>(n));
  } else if (S_ISREG(st.st_mode)) {
    AW_TRY(e.data, read_file_at(dirfd, name, rel, st, b));
  } else if (!S_ISDIR(st.st_mode)) {
    return {};  // a fifo or socket: not kept, removed at the restore
  }
  out.push_back(e);
  if (S_ISDIR(st.st_mode)) return read_children(dirfd, name, rel, depth, b, out);
  return {};
}

Status read_top(int home, const std::string& top, Budget& b, std::vector<Entry>& out) {
  UniqueFd parent = open_below(home, parent_of(top));
  if (parent.get() < 0) return {};  // a parent that is not a folder: nothing there
  return read_tree(parent.get(), base_of(top), top, 0, b, out);
}

Status remove_at(int dirfd, const std::string& name, const std::string& rel, int depth) {
  if (kept(rel)) return {};
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status{} : fail("~/{}: {}", rel, errno_text(errno));
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(dirfd, name.c_str(), 0) != 0)
      return fail("remove ~/{}: {}", rel, errno_text(errno));
    return {};
  }
  if (depth > kMaxDepth) return fail("~/{}: more than {} folders deep", rel, kMaxDepth);
  {
    UniqueFd fd(open_folder_at(dirfd, name));
    if (fd.get() < 0) return fail("open ~/{}: {}", rel, errno_text(errno));
    ::fchmod(fd.get(), 0700);  // a round may have closed it to keep its files
    for (const auto& n : names_in(fd.get()))
      AW_CHECK(remove_at(fd.get(), n, rel + "/" + n, depth + 1));
  }
  if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) == 0) return {};
  if (errno == ENOTEMPTY && (rel == ".codex")) return {};  // holds the kept login
  return fail("remove ~/{}: {}", rel, errno_text(errno));
}

// The folder rel made (or kept) as a real folder, each of its parents too.
Result<UniqueFd> make_below(int home, const std::string& rel) {
  UniqueFd at(::dup(home));
  for (const auto& [part, shown] : parts_of(rel)) {
    UniqueFd next(open_folder_at(at.get(), part));
    if (next.get() < 0) {
      AW_CHECK(remove_at(at.get(), part, shown, 0));  // a link or file in the folder's place
      if (::mkdirat(at.get(), part.c_str(), 0700) != 0 && errno != EEXIST)
        return fail("make ~/{}: {}", shown, errno_text(errno));
      next = UniqueFd(open_folder_at(at.get(), part));
      if (next.get() < 0) return fail("open ~/{}: {}", shown, errno_text(errno));
    }
    at = std::move(next);
  }
  return at;
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

Status write_entry(int home, const Entry& e) {
  AW_TRY(UniqueFd parent, make_below(home, parent_of(e.path)));
  std::string name = base_of(e.path);
  if (e.type == S_IFDIR) {
    if (::mkdirat(parent.get(), name.c_str(), 0700) != 0 && errno != EEXIST)
      return fail("make ~/{}: {}", e.path, errno_text(errno));
    return {};
  }
  if (e.type == S_IFLNK) {
    if (::symlinkat(e.data.c_str(), parent.get(), name.c_str()) != 0)
      return fail("link ~/{}: {}", e.path, errno_text(errno));
    return {};
  }
  UniqueFd fd(::openat(parent.get(), name.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return fail("write ~/{}: {}", e.path, errno_text(errno));
  if (!write_all(fd.get(), e.data) || ::fchmod(fd.get(), e.mode) != 0)
    return fail("write ~/{}: {}", e.path, errno_text(errno));
  return {};
}

// Folders get their modes last, deepest first, so a closed folder is filled before it closes.
Status close_folders(int home, const std::vector<const Entry*>& written) {
  for (auto it = written.rbegin(); it != written.rend(); ++it) {
    if ((*it)->type != S_IFDIR) continue;
    UniqueFd fd = open_below(home, (*it)->path);
    if (fd.get() < 0 || ::fchmod(fd.get(), (*it)->mode) != 0)
      return fail("set the mode of ~/{}: {}", (*it)->path, errno_text(errno));
  }
  return {};
}

bool under(const std::string& path, const std::string& top) {
  return path == top || (path.size() > top.size() && path.compare(0, top.size(), top) == 0 &&
                         path[top.size()] == '/');
}

// A parent of a CLI path that a round made a link or a file (~/.config -> a folder the round
// filled) would hand the next round what it points at: removed, the link itself only.
Status clear_parents(int home, const std::string& rel, std::vector<std::string>& notes) {
  UniqueFd at(::dup(home));
  for (const auto& [part, shown] : parts_of(rel)) {
    struct stat st {};
    if (::fstatat(at.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
    if (!S_ISDIR(st.st_mode)) {
      AW_CHECK(remove_at(at.get(), part, shown, 0));
      notes.push_back(fmt::format("~/{} was not a folder: removed", shown));
      return {};
    }
    at = UniqueFd(open_folder_at(at.get(), part));
    if (at.get() < 0) return fail("open ~/{}: {}", shown, errno_text(errno));
  }
  return {};
}

Result<UniqueFd> open_home(const HomeSnapshot& s) {
  UniqueFd home(::open(s.home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (home.get() < 0 || ::fstat(home.get(), &st) != 0 || st.st_dev != s.dev || st.st_ino != s.ino)
    return fail("the unit's HOME {} was replaced", s.home);
  return home;
}

}  // namespace

Result<HomeSnapshot> snapshot_home(const std::string& home) {
  HomeSnapshot s;
  s.home = home;
  UniqueFd fd(::open(home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0)
    return fail("open the unit's HOME {}: {}", home, errno_text(errno));
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  Budget b;
  for (const auto& top : kAgentHomePaths)
    AW_CHECK(
        with_context(read_top(fd.get(), top, b, s.entries), "the agent's HOME before round 1"));
  return s;
}

Status restore_home(const HomeSnapshot& s, std::vector<std::string>& notes) {
  AW_TRY(UniqueFd home, open_home(s));
  for (const auto& top : kAgentHomePaths) {
    AW_CHECK(clear_parents(home.get(), parent_of(top), notes));
    std::vector<const Entry*> want;
    for (const auto& e : s.entries)
      if (under(e.path, top)) want.push_back(&e);
    std::vector<Entry> now;
    Budget b;
    bool read = static_cast<bool>(read_top(home.get(), top, b, now));
    if (read && now.size() == want.size() &&
        std::equal(now.begin(), now.end(), want.begin(),
                   [](const Entry& a, const Entry* w) { return same(a, *w); }))
      continue;
    UniqueFd parent = open_below(home.get(), parent_of(top));
    if (parent.get() >= 0) AW_CHECK(remove_at(parent.get(), base_of(top), top, 0));
    for (const Entry* e : want) AW_CHECK(write_entry(home.get(), *e));
    AW_CHECK(close_folders(home.get(), want));
    notes.push_back(fmt::format("~/{} put back as it was before round 1", top));
  }
  return {};
}

}  // namespace aw
