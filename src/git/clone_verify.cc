// After every phase: is the clone still the folder awaywork made, and does its .git still look
// like awaywork wrote it? Verification comes first and changes nothing; only a clone that passes
// is repaired (config and info/ rewritten, hooks removed). Nothing here follows a link the agent
// planted.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"
#include "git/dir_at.h"
#include "git/git_internal.h"

namespace aw {

namespace {

Status same_dir(const std::string& path, const DirId& want) {
  AW_TRY(DirId now, dir_id(path));
  if (!(now == want)) return fail("{} is not the folder awaywork created (other inode)", path);
  return {};
}

// These files would make git read objects or a repository from somewhere else.
Status no_redirection(const std::string& dotgit) {
  for (const char* rel :
       {"/objects/info/alternates", "/objects/info/http-alternates", "/commondir", "/gitdir"}) {
    std::string p = dotgit + rel;
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0) return fail("{} exists: the clone redirects git", p);
    if (errno != ENOENT && errno != ENOTDIR) return fail("lstat {}: {}", p, errno_text(errno));
  }
  return {};
}

bool is_sample(const std::string& name) {
  const std::string suffix = ".sample";
  return name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// .git/hooks as a real folder holding only *.sample files. A link is replaced, never followed.
Status clear_hooks(const std::string& dotgit, std::vector<std::string>& notes) {
  std::string hooks = dotgit + "/hooks";
  struct stat st {};
  if (::lstat(hooks.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return fail("lstat {}: {}", hooks, errno_text(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlink(hooks.c_str()) != 0) return fail("unlink {}: {}", hooks, errno_text(errno));
    notes.push_back(fmt::format("removed {} (not a folder)", hooks));
    return {};
  }
  UniqueFd fd(::open(hooks.c_str(), kDirAtFlags));
  if (fd.get() < 0) return fail("open {}: {}", hooks, errno_text(errno));
  AW_TRY(std::vector<DirEntry> entries, read_entries(fd.get(), hooks));
  for (const auto& e : entries) {
    if (is_sample(e.name)) continue;
    AW_CHECK(remove_tree(hooks + "/" + e.name));
    notes.push_back(fmt::format("removed hook {}", e.name));
  }
  return {};
}

// Rewritten whenever it differs; write_file replaces a link or file, never writes through it.
Status restore_config(const Clone& clone, std::vector<std::string>& notes) {
  std::string path = clone.work + "/.git/config";
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    notes.push_back("recreated missing .git/config");
  } else if (S_ISLNK(st.st_mode)) {
    notes.push_back("replaced .git/config, which was a link");
  } else {
    auto now = S_ISREG(st.st_mode) ? read_file(path) : Result<std::string>(fail("not a file"));
    if (now && *now == clone.saved_config) return {};
    notes.push_back("restored .git/config");
  }
  return write_file(path, clone.saved_config, 0644);
}

bool is_info_file(const std::string& name) {
  for (const auto& f : gitx::kCloneInfo)
    if (name == f.name) return true;
  return false;
}

// .git/info exactly as awaywork wrote it (gitx::kCloneInfo): a changed file rewritten, anything
// else (grafts, sparse-checkout, a planted folder) removed. info/attributes outranks every other
// attributes file of every git run in the clone: left as a phase wrote it (`* filter=x`), it
// would switch on a filter in a later phase's git (docs/rounds.md).
Status restore_info(const std::string& dotgit, std::vector<std::string>& notes) {
  std::string info = dotgit + "/info";
  struct stat st {};
  if (::lstat(info.c_str(), &st) != 0) {
    if (errno != ENOENT) return fail("lstat {}: {}", info, errno_text(errno));
    notes.push_back("recreated missing .git/info");
  } else if (!S_ISDIR(st.st_mode)) {
    if (::unlink(info.c_str()) != 0) return fail("unlink {}: {}", info, errno_text(errno));
    notes.push_back("replaced .git/info, which was not a folder");
  }
  if (::mkdir(info.c_str(), 0755) != 0 && errno != EEXIST)
    return fail("mkdir {}: {}", info, errno_text(errno));
  UniqueFd fd(::open(info.c_str(), kDirAtFlags));
  if (fd.get() < 0 && errno == EACCES && ::chmod(info.c_str(), 0700) == 0)  // a phase closed it
    fd = UniqueFd(::open(info.c_str(), kDirAtFlags));
  if (fd.get() < 0) return fail("open {}: {}", info, errno_text(errno));
  AW_TRY(std::vector<DirEntry> entries, read_entries(fd.get(), info));
  for (const auto& e : entries) {
    if (is_info_file(e.name)) continue;
    AW_CHECK(remove_tree(info + "/" + e.name));
    notes.push_back(fmt::format("removed .git/info/{}", e.name));
  }
  for (const auto& f : gitx::kCloneInfo) {
    std::string path = info + "/" + f.name;
    // A link, a folder, a fifo or an unreadable file: not what was written.
    auto now = read_file(path, 1u << 16);
    if (now && *now == f.content) continue;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) AW_CHECK(remove_tree(path));
    AW_CHECK(write_file(path, f.content, 0644));
    notes.push_back(fmt::format("restored .git/info/{}", f.name));
  }
  return {};
}

}  // namespace

Status verify_and_restore(const Clone& clone, std::vector<std::string>& notes) {
  std::string dotgit = clone.work + "/.git";
  AW_CHECK(with_context(same_dir(clone.work, clone.work_id), "clone lost"));
  AW_CHECK(with_context(same_dir(dotgit, clone.dotgit_id), "clone lost"));
  AW_CHECK(with_context(no_redirection(dotgit), "clone lost"));
  AW_CHECK(with_context(restore_config(clone, notes), "restore clone"));
  AW_CHECK(with_context(clear_hooks(dotgit, notes), "restore clone"));
  AW_CHECK(with_context(restore_info(dotgit, notes), "restore clone"));
  return {};
}

}  // namespace aw
