// prepare: the agent's clone (objects copied, awaywork's own config) and awaywork's shadow of it.
#include <fcntl.h>
#include <sys/stat.h>

#include "git/git_internal.h"

namespace aw {

namespace {

// Refuse names that git would read as an option or that are not a valid branch.
Status check_branch_name(const std::string& branch) {
  if (branch.empty() || branch[0] == '-') return fail("invalid branch name '{}'", branch);
  AW_TRY(Captured c, git(gitx::at("", {"check-ref-format", "refs/heads/" + branch})));
  if (c.exit_code != 0) return fail("invalid branch name '{}'", branch);
  return {};
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Copy the index with its mtime. Git's racy-clean rule: an entry whose file mtime is not older
// than the index file's own mtime cannot be trusted by stat and is re-hashed. The checkout and
// the index are written in the same instant, so keeping the index's mtime keeps that rule in
// force: a file the agent rewrites with the same size within the same timestamp tick is still
// re-read. A fresh mtime on the copy would make those entries look safely older than the index.
Status copy_index(const std::string& from, const std::string& to) {
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return fail("{}: no index after checkout", from);
  AW_TRY(std::string bytes, read_file(from, size_t{1} << 31));
  AW_CHECK(write_file(to, bytes, 0600));
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  if (::utimensat(AT_FDCWD, to.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
    return fail("set mtime of {}: {}", to, errno_text(errno));
  return {};
}

Status make_work_clone(const std::string& src_git_dir, bool src_has_alternates,
                       const std::string& work) {
  std::vector<std::string> args = {"clone", "--quiet", "--no-checkout", "--no-hardlinks",
                                   "--template="};
  // A local clone would copy the source's own alternates into the clone; go through the pack
  // transport then, so every object is a copy and the clone borrows nothing.
  if (src_has_alternates) args.push_back("--no-local");
  args.insert(args.end(), {"--", src_git_dir, work});
  AW_CHECK(git_ok(gitx::at("", args)));
  return {};
}

Status check_out_base(const Clone& c) {
  std::string dotgit = c.work + "/.git";
  AW_CHECK(make_dirs(dotgit + "/info"));
  for (const auto& f : gitx::kCloneInfo)
    AW_CHECK(write_file(dotgit + "/info/" + f.name, f.content, 0644));
  AW_CHECK(write_file(dotgit + "/config", c.saved_config));
  GitCall g = gitx::at(dotgit, {});
  g.work_tree = c.work;
  g.args = {"update-ref", "-m", "awaywork: base", "refs/heads/" + c.branch, c.base_commit};
  AW_CHECK(git_ok(g));
  g.args = {"symbolic-ref", "HEAD", "refs/heads/" + c.branch};
  AW_CHECK(git_ok(g));
  // The work tree is empty (--no-checkout), so this only writes files and the index.
  g.args = {"read-tree", "-m", "-u", "HEAD"};
  AW_CHECK(git_ok(g));
  return {};
}

Status make_shadow(const Clone& c, const std::string& src_objects, const std::string& format) {
  AW_CHECK(gitx::make_borrowing_git_dir(c.shadow, src_objects, format));
  AW_CHECK(write_file(c.shadow + "/HEAD", c.base_commit + "\n"));
  AW_CHECK(copy_index(c.work + "/.git/index", c.shadow + "/index"));
  return {};
}

}  // namespace

Result<Clone> make_clone(const SourceRepo& src, const std::string& base_commit,
                         const std::string& branch, const std::string& work_dir,
                         const std::string& shadow_dir) {
  if (!gitx::is_object_id(base_commit))
    return fail("base '{}' is not a full commit id", base_commit);
  if (work_dir.empty() || work_dir[0] != '/' || shadow_dir.empty() || shadow_dir[0] != '/')
    return fail("clone folders must be absolute paths");
  if (exists(work_dir)) return fail("{} already exists", work_dir);
  AW_CHECK(check_branch_name(branch));
  AW_TRY(gitx::ObjectStore store, gitx::object_store(src.git_dir));
  const std::string &format = store.format, &src_objects = store.objects;
  AW_TRY(std::string src_common, gitx::common_dir(src.git_dir));

  Clone c;
  c.work = work_dir;
  c.shadow = shadow_dir;
  c.base_commit = base_commit;
  c.branch = branch;
  c.saved_config = gitx::minimal_config(false, format);
  AW_CHECK(with_context(
      make_work_clone(src_common, exists(src_objects + "/info/alternates"), work_dir), "clone"));
  AW_CHECK(with_context(check_out_base(c), "check out base"));
  AW_TRY(c.work_id, dir_id(work_dir));
  AW_TRY(c.dotgit_id, dir_id(work_dir + "/.git"));
  AW_CHECK(with_context(make_shadow(c, src_objects, format), "shadow"));
  return c;
}

}  // namespace aw
