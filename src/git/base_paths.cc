// Between agent rounds: the agent CLIs' settings and instruction paths at the clone's top, and the
// instruction files and .claude/ folders at any depth below it, put back to the base commit's
// content (git.h). The agent is hostile and fs.protected_symlinks may be 0:
// every step is relative to a descriptor of the verified clone folder and opens nothing through a
// link (O_NOFOLLOW, *at calls on names without '/'), so a link planted at one of these paths is
// removed as a link, never followed. No process of the unit runs while this does (the after-phase
// checks proved them gone), so what is looked at cannot change under it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "base/unique_fd.h"
#include "git/dir_at.h"
#include "git/git_internal.h"

namespace aw {

const std::vector<std::string> kAgentInstructionPaths = {
    ".claude",   ".codex",    ".gemini",   ".cursor", ".opencode",     ".mcp.json",
    "AGENTS.md", "CLAUDE.md", "GEMINI.md", ".agents", "opencode.json", "opencode.jsonc"};

// Loaded from below the top too: Claude Code reads a CLAUDE.md and searches .claude/skills in the
// folders of the files it touches (2.1.332), opencode an AGENTS.md (1.18.33), Gemini CLI a
// GEMINI.md (0.61.0); the patch check refuses the three files at any depth (check/bounds.h).
const std::vector<std::string> kAgentNestedNames = {"AGENTS.md", "CLAUDE.md", "GEMINI.md",
                                                    ".claude"};

namespace {

using Fd = UniqueFd;

constexpr int kDirFlags = kDirAtFlags;
using Name = DirEntry;

std::vector<std::string> names_in(int dirfd) {
  std::vector<std::string> out;
  for (auto& n : entries_in(dirfd)) out.push_back(std::move(n.name));
  return out;
}

Result<std::string> read_at(int dirfd, const std::string& name, size_t size) {
  Fd f(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (f.fd < 0) return fail("open: {}", errno_text(errno));
  std::string out(size, '\0');
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(f.fd, out.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

using Wanted = std::map<std::string, const BaseSnapshot::Entry*>;

// Does name below dirfd (shown as rel) hold exactly what `want` lists under rel, nothing else?
// Content is read only where the base has a file of the same size.
bool same_as_base(int dirfd, const std::string& name, const std::string& rel, const Wanted& want,
                  size_t& matched) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
  if (S_ISDIR(st.st_mode)) {
    Fd sub(::openat(dirfd, name.c_str(), kDirFlags));
    if (sub.fd < 0) return false;
    for (const auto& n : names_in(sub.fd))
      if (!same_as_base(sub.fd, n, rel + "/" + n, want, matched)) return false;
    return true;
  }
  auto it = want.find(rel);
  if (it == want.end()) return false;
  const BaseSnapshot::Entry& e = *it->second;
  if (S_ISLNK(st.st_mode)) {
    if (e.mode != 0120000 || static_cast<size_t>(st.st_size) != e.data.size()) return false;
    std::string target(e.data.size() + 1, '\0');
    ssize_t n = ::readlinkat(dirfd, name.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<size_t>(n) != e.data.size()) return false;
    target.resize(static_cast<size_t>(n));
    ++matched;
    return target == e.data;
  }
  if (!S_ISREG(st.st_mode)) return false;
  unsigned mode = (st.st_mode & 0100) ? 0100755 : 0100644;
  if (mode != e.mode || static_cast<size_t>(st.st_size) != e.data.size()) return false;
  auto data = read_at(dirfd, name, e.data.size());
  ++matched;
  return data && *data == e.data;
}

// One entry of the base written below the clone folder: its folders made (never entered through
// a link: each is opened O_NOFOLLOW), then the file or link created new (O_EXCL).
Status write_entry(int root, const BaseSnapshot::Entry& e) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t slash = e.path.find('/', start);
    parts.push_back(e.path.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  int dirfd = root;
  std::vector<std::unique_ptr<Fd>> held;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (::mkdirat(dirfd, parts[i].c_str(), 0755) != 0 && errno != EEXIST)
      return fail("mkdir {}: {}", e.path, errno_text(errno));
    held.push_back(std::make_unique<Fd>(::openat(dirfd, parts[i].c_str(), kDirFlags)));
    if (held.back()->fd < 0) return fail("open a folder of {}: {}", e.path, errno_text(errno));
    (void)::fchmod(held.back()->fd, 0755);
    dirfd = held.back()->fd;
  }
  const std::string& leaf = parts.back();
  if (e.mode == 0120000) {
    if (::symlinkat(e.data.c_str(), dirfd, leaf.c_str()) != 0)
      return fail("link {}: {}", e.path, errno_text(errno));
    return {};
  }
  mode_t mode = e.mode == 0100755 ? 0755 : 0644;
  Fd f(::openat(dirfd, leaf.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (f.fd < 0) return fail("create {}: {}", e.path, errno_text(errno));
  AW_CHECK(write_fd(f.fd, e.data, e.path));
  if (::fchmod(f.fd, mode) != 0) return fail("chmod {}: {}", e.path, errno_text(errno));
  return {};
}

bool under(const std::string& path, const std::string& top) {
  return path == top || (path.size() > top.size() && path.compare(0, top.size(), top) == 0 &&
                         path[top.size()] == '/');
}

bool listed(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// The nested unit a path below the top falls in: its prefix up to the first component named in
// `nested` ("src/.claude" for src/.claude/skills/x/SKILL.md); "" when none (or at the top).
std::string nested_unit(const std::string& path, const std::vector<std::string>& nested) {
  size_t start = path.find('/');
  while (start != std::string::npos) {
    size_t end = path.find('/', start + 1);
    if (listed(nested, path.substr(start + 1, end - start - 1))) return path.substr(0, end);
    start = end;
  }
  return "";
}

// Folders deeper than this below the clone are refused (dir_at.h).
constexpr int kMaxDepth = kMaxDirAtDepth;

// Every nested unit present in the clone, and every folder the walk reached (the only parents a
// unit of the base is put back into), never entering a link, .git, one of the tops, or .away
// (the unit's HOME, TMPDIR and outputs under isolation container: awaywork's, never collected).
Status walk_nested(int dirfd, const std::string& rel, int depth, const BaseSnapshot& s,
                   std::set<std::string>& found, std::set<std::string>& dirs) {
  if (depth > kMaxDepth) return fail("{} is more than {} folders deep; refused", rel, kMaxDepth);
  dirs.insert(rel);
  for (const auto& [name, type] : entries_in(dirfd)) {
    std::string child = rel.empty() ? name : rel + "/" + name;
    if (rel.empty() && (name == ".git" || name == ".away" || listed(s.tops, name))) continue;
    if (!rel.empty() && listed(s.nested, name)) {
      found.insert(child);
      continue;
    }
    bool dir = type == DT_DIR;
    if (type == DT_UNKNOWN) {
      struct stat st {};
      dir = ::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    if (!dir) continue;
    Fd sub(open_dir_at(dirfd, name));
    if (sub.fd < 0) return fail("open {}: {}", child, errno_text(errno));
    AW_CHECK(walk_nested(sub.fd, child, depth + 1, s, found, dirs));
  }
  return {};
}

// The folder `rel` below root, each component opened without following a link.
Result<Fd> open_below(int root, const std::string& rel) {
  Fd at(::dup(root));
  for (size_t start = 0; start < rel.size();) {
    size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    Fd next(open_dir_at(at.fd, rel.substr(start, slash - start)));
    if (next.fd < 0) return fail("open {}: {}", rel, errno_text(errno));
    at = std::move(next);
    start = slash + 1;
  }
  return at;
}

// One unit (a top, or a nested path) made exactly what the base has below it; a note when it was
// not already. parent: the unit's folder's descriptor; name: its last component.
Status restore_unit(int root, int parent, const std::string& name, const std::string& unit,
                    const BaseSnapshot& s, std::vector<std::string>& notes) {
  Wanted want;
  for (const auto& e : s.entries)
    if (under(e.path, unit)) want.emplace(e.path, &e);
  size_t matched = 0;
  if (same_as_base(parent, name, unit, want, matched) && matched == want.size()) return {};
  AW_CHECK(remove_at(parent, name, unit));
  for (const auto& [_, e] : want) AW_CHECK(write_entry(root, *e));
  notes.push_back(want.empty() ? fmt::format("removed {} (the base has none)", unit)
                               : fmt::format("restored {} to the base's content", unit));
  return {};
}

}  // namespace

Result<BaseSnapshot> snapshot_base_paths(const Clone& c, const std::vector<std::string>& tops,
                                         const std::vector<std::string>& nested) {
  return snapshot_paths_at(c, c.base_commit, tops, nested);
}

Result<BaseSnapshot> snapshot_paths_at(const Clone& c, const std::string& commit,
                                       const std::vector<std::string>& tops,
                                       const std::vector<std::string>& nested) {
  if (!gitx::is_object_id(commit)) return fail("'{}' is not a full commit id", commit);
  BaseSnapshot s;
  s.tops = tops;
  s.nested = nested;
  // The whole tree's names (one git call, once per unit); contents only of what is kept.
  AW_TRY(std::string listed_tree,
         gitx::run_ok(gitx::at(c.shadow, {"ls-tree", "-r", "-z", "--full-tree", commit}), {}));
  std::vector<std::string> kept;
  for (auto& rec : gitx::split_z(listed_tree)) {
    size_t tab = rec.find('\t');
    if (tab == std::string::npos) return fail("git ls-tree: odd line {}", rec);
    std::string path = rec.substr(tab + 1);
    bool top =
        std::any_of(tops.begin(), tops.end(), [&](const std::string& t) { return under(path, t); });
    if (top || !nested_unit(path, nested).empty()) kept.push_back(std::move(rec));
  }
  std::string batch;
  for (const auto& rec : kept) {
    // "<mode> SP <type> SP <object> TAB <path>"
    size_t tab = rec.find('\t');
    if (tab == std::string::npos || rec.size() < 7) return fail("git ls-tree: odd line {}", rec);
    BaseSnapshot::Entry e;
    e.mode = static_cast<unsigned>(std::strtoul(rec.substr(0, 6).c_str(), nullptr, 8));
    e.path = rec.substr(tab + 1);
    if (e.mode == 0160000) continue;  // a submodule: an empty folder in the clone, as in the base
    batch += rec.substr(rec.rfind(' ', tab) + 1, tab - rec.rfind(' ', tab) - 1) + "\n";
    s.entries.push_back(std::move(e));
  }
  if (s.entries.empty()) return s;
  GitCall cat = gitx::at(c.shadow, {"cat-file", "--batch"});
  cat.stdin_data = batch;
  AW_TRY(std::string out, gitx::run_ok(cat, {}));
  size_t at = 0;
  for (auto& e : s.entries) {
    size_t nl = out.find('\n', at);
    size_t sp = out.rfind(' ', nl);
    if (nl == std::string::npos || sp == std::string::npos || sp < at)
      return fail("git cat-file: short answer for {}", e.path);
    size_t size = std::strtoul(out.substr(sp + 1, nl - sp - 1).c_str(), nullptr, 10);
    if (nl + 1 + size > out.size()) return fail("git cat-file: short answer for {}", e.path);
    e.data = out.substr(nl + 1, size);
    at = nl + 1 + size + 1;
  }
  std::sort(s.entries.begin(), s.entries.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return s;
}

Status restore_base_paths(const Clone& c, const BaseSnapshot& s, std::vector<std::string>& notes) {
  Fd root(::open(c.work.c_str(), kDirFlags));
  if (root.fd < 0) return fail("clone lost: open {}: {}", c.work, errno_text(errno));
  struct stat st {};
  if (::fstat(root.fd, &st) != 0 || st.st_dev != c.work_id.dev || st.st_ino != c.work_id.ino)
    return fail("clone lost: {} is not the folder awaywork created", c.work);
  for (const auto& top : s.tops) AW_CHECK(restore_unit(root.fd, root.fd, top, top, s, notes));
  if (s.nested.empty()) return {};
  std::set<std::string> units, dirs;
  AW_CHECK(walk_nested(root.fd, "", 0, s, units, dirs));
  // The base's nested units go back where their folder still is; a folder round 1 removed or
  // replaced with a link is not made again (nothing there is loaded).
  for (const auto& e : s.entries) {
    std::string unit = nested_unit(e.path, s.nested);
    if (!unit.empty() && dirs.count(unit.substr(0, unit.rfind('/')))) units.insert(unit);
  }
  for (const auto& unit : units) {
    size_t slash = unit.rfind('/');
    AW_TRY(Fd parent, open_below(root.fd, unit.substr(0, slash)));
    AW_CHECK(restore_unit(root.fd, parent.fd, unit.substr(slash + 1), unit, s, notes));
  }
  return {};
}

}  // namespace aw
