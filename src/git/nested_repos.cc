// Between agent rounds: no git repository below the clone's top (git.h remove_nested_repos).
// git at the clone's top reads a nested repository's config when it recurses into it: a gitlink
// in the agent's index whose folder holds a `.git` makes `git status` run `git status` in that
// folder, and there the nested config's core.fsmonitor, hooks and filters run. A round that
// planted one would have the next round's first `git status` run it, after awaywork had put the
// instruction files back. Removing every nested `.git` makes each such folder plain files of the
// clone's own repository (whose config awaywork rewrites after every phase); the patch check
// refuses `.git` at any depth, so nothing publishable is lost. The round before is hostile and
// fs.protected_symlinks may be 0: every step is relative to a folder descriptor opened with
// O_NOFOLLOW, so a link is removed as a link and never entered. Nothing of the unit runs here.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"
#include "git/dir_at.h"
#include "git/git_internal.h"

namespace aw {

namespace {

// Deeper than this is refused, as restore_base_paths refuses it (dir_at.h).
constexpr int kMaxNestedDepth = kMaxDirAtDepth;

using Name = DirEntry;
std::vector<Name> dir_entries(int dirfd) {
  return entries_in(dirfd);
}

bool is_dir_at(int dirfd, const Name& n) {
  if (n.type != DT_UNKNOWN) return n.type == DT_DIR;
  struct stat st {};
  return ::fstatat(dirfd, n.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// Every `.git` below dirfd (shown as rel) removed, whatever it is (a folder, a gitfile, a link),
// its path added to removed; the walk enters real folders only, `.away` included (HOME under
// isolation container: a gitlink can name a folder there too). The top's own .git is skipped.
Status walk(int dirfd, const std::string& rel, int depth, std::vector<std::string>& removed) {
  if (depth > kMaxNestedDepth)
    return fail("{} is more than {} folders deep; refused", rel, kMaxNestedDepth);
  for (const auto& n : dir_entries(dirfd)) {
    std::string child = rel.empty() ? n.name : rel + "/" + n.name;
    if (rel.empty() && n.name == ".git") continue;
    if (n.name == ".git") {
      AW_CHECK(remove_at(dirfd, n.name, child, depth));
      removed.push_back(child);
      continue;
    }
    if (!is_dir_at(dirfd, n)) continue;
    UniqueFd sub(open_dir_at(dirfd, n.name));
    if (sub.get() < 0) return fail("open {}: {}", child, errno_text(errno));
    AW_CHECK(walk(sub.get(), child, depth + 1, removed));
  }
  return {};
}

// One note per removed `.git`, up to a few; the rest counted (a HOME's caches may hold many).
constexpr size_t kNamedNotes = 10;

}  // namespace

Status remove_nested_repos(const Clone& c, std::vector<std::string>& notes) {
  UniqueFd root(::open(c.work.c_str(), kDirAtFlags));
  if (root.get() < 0) return fail("clone lost: open {}: {}", c.work, errno_text(errno));
  struct stat st {};
  if (::fstat(root.get(), &st) != 0 || st.st_dev != c.work_id.dev || st.st_ino != c.work_id.ino)
    return fail("clone lost: {} is not the folder awaywork created", c.work);
  std::vector<std::string> removed;
  AW_CHECK(walk(root.get(), "", 0, removed));
  for (size_t i = 0; i < removed.size() && i < kNamedNotes; ++i)
    notes.push_back(fmt::format("removed {} (a nested git repository)", removed[i]));
  if (removed.size() > kNamedNotes)
    notes.push_back(
        fmt::format("removed {} more nested git repositories", removed.size() - kNamedNotes));
  // The submodules' git dirs: a gitfile (or `git submodule update`) would make them a nested
  // repository again, with the config a round left in them.
  UniqueFd dotgit(::openat(root.get(), ".git", kDirAtFlags));
  if (dotgit.get() < 0) return fail("clone lost: open {}/.git: {}", c.work, errno_text(errno));
  if (::fstatat(dotgit.get(), "modules", &st, AT_SYMLINK_NOFOLLOW) == 0) {
    AW_CHECK(remove_at(dotgit.get(), "modules", ".git/modules", 1));
    notes.push_back("removed .git/modules (the git dirs of nested repositories)");
  }
  return {};
}

}  // namespace aw
