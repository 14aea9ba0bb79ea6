// apply's git part (the clean side): the patch is applied to the base in a scratch git dir that
// awaywork owns, committed there, and only the new commit is pushed to the source as a new
// branch. The source's working tree, index, HEAD and existing refs are never written.
#include <stdlib.h>

#include <algorithm>
#include <cerrno>

#include "git/git_internal.h"

namespace aw {

namespace gitx {

Result<std::vector<std::string>> changed_paths(const GitCall& base, const std::string& from,
                                               const std::string& to) {
  GitCall g = base;
  g.args = {
      "diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--name-only", "-z",
      from,        to};
  AW_TRY(std::string got, git_ok(g));
  return gitx::split_z(got);
}

Result<std::string> commit_tree(const GitCall& base, const std::string& tree,
                                const std::string& parent, const Identity& who,
                                const std::string& message) {
  std::vector<std::string> env = {
      "GIT_AUTHOR_NAME=" + who.name,
      "GIT_AUTHOR_EMAIL=" + who.email,
      "GIT_COMMITTER_NAME=" + who.name,
      "GIT_COMMITTER_EMAIL=" + who.email,
  };
  GitCall g = base;
  g.args = {"commit-tree", tree, "-p", parent, "-F", "-"};
  g.stdin_data = message;
  AW_TRY(std::string commit_out, gitx::run_ok(g, env));
  std::string commit = gitx::first_line(commit_out);
  if (!gitx::is_object_id(commit)) return fail("commit-tree gave '{}'", commit);
  return commit;
}

// See push_create for why the receive-pack is given for a repository on this machine.
Result<Captured> run_push(const GitCall& base, const PushTarget& to, const std::string& commit,
                          const std::string& ref, const std::string& lease) {
  if (to.remote) AW_CHECK(check_own_config(base.git_dir));
  GitCall g = base;
  g.index_file.clear();
  g.args = to.pre_args;
  for (std::string a : {"push", "--porcelain", "--no-verify", "--no-recurse-submodules"})
    g.args.push_back(a);
  if (!lease.empty()) g.args.push_back(lease);
  if (to.local_receive_pack)
    g.args.push_back(
        "--receive-pack=git -c core.hooksPath=/dev/null -c core.fsmonitor=false "
        "-c receive.autogc=false -c receive.updateServerInfo=false receive-pack");
  g.args.push_back("--");
  g.args.push_back(to.dest);
  g.args.push_back(commit + ":" + ref);
  return gitx::run(g, to.env);
}

// A push that can only create: no force flag, and the porcelain line must say "*" (new ref).
// When the ref is not advertised, the client sends old-id zero and receive-pack's transaction
// then requires the ref to still be absent, so a branch created after the advertisement is not
// overwritten. Left open: a branch created between the caller's absence check and the
// advertisement at a commit that is an ancestor of ours would be fast-forwarded; the porcelain
// flag (" " instead of "*") then makes this an Error, but after the fact.
// For a repository on this machine the receive-pack is started by git through the
// --receive-pack command, which carries the hardening itself: -c options given to `git push` do
// not reach a local receive-pack (git drops GIT_CONFIG_PARAMETERS for the other repository), so
// the target's hooks would run without it. Over git:// or http(s) the server runs its own.
Status push_create(const GitCall& base, const PushTarget& to, const std::string& commit,
                   const std::string& ref) {
  AW_TRY(Captured c, run_push(base, to, commit, ref, ""));
  std::string want = "*\t" + commit + ":" + ref + "\t";
  if (c.exit_code != 0 || c.out.find(want) == std::string::npos)
    return fail("push {} to {} refused (exit {}): {}{}", ref, to.shown, c.exit_code, c.out, c.err);
  return {};
}

}  // namespace gitx

namespace {

Status branch_absent(const SourceRepo& src, const std::string& ref) {
  AW_TRY(Captured c, git(gitx::at(src.git_dir, {"rev-parse", "--verify", "--quiet", ref})));
  if (c.exit_code == 0) return fail("{} already exists in {}; not overwritten", ref, src.git_dir);
  return {};
}

}  // namespace

Result<std::string> publish_branch(const SourceRepo& src, const std::string& base_commit,
                                   const std::string& patch, const std::string& branch,
                                   const Identity& who, const std::string& message,
                                   const std::string& scratch_dir) {
  if (patch.empty()) return fail("nothing to publish: the patch is empty");
  if (!gitx::is_object_id(base_commit))
    return fail("base '{}' is not a full commit id", base_commit);
  if (branch.empty() || branch[0] == '-') return fail("invalid branch name '{}'", branch);
  std::string ref = "refs/heads/" + branch;
  AW_TRY(Captured fmt_ok, git(gitx::at("", {"check-ref-format", ref})));
  if (fmt_ok.exit_code != 0) return fail("invalid branch name '{}'", branch);
  AW_CHECK(branch_absent(src, ref));

  AW_TRY(gitx::ObjectStore store, gitx::object_store(src.git_dir));
  AW_CHECK(make_dirs(scratch_dir));
  // A fresh folder per attempt, removed afterwards: nothing carries over between publishes.
  std::string tmpl = scratch_dir + "/publish-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return fail("mkdtemp in {}: {}", scratch_dir, errno_text(errno));
  struct Cleanup {
    std::string path;
    ~Cleanup() { (void)remove_tree(path); }
  } cleanup{tmpl};
  std::string dir = tmpl + "/git";
  AW_CHECK(gitx::make_borrowing_git_dir(dir, store.objects, store.format));
  GitCall base = gitx::at(dir, {});
  base.index_file = dir + "/publish-index";

  AW_TRY(std::vector<std::string> paths, with_context(gitx::patch_paths(base, patch), "publish"));
  AW_TRY(gitx::AppliedTree applied,
         with_context(gitx::apply_sparse(base, base_commit, patch, paths), "publish"));
  AW_TRY(std::string commit,
         with_context(gitx::commit_tree(base, applied.tree, base_commit, who, message), "publish"));
  AW_CHECK(branch_absent(src, ref));  // again, as late as possible before the push
  AW_TRY(std::string dest, gitx::common_dir(src.git_dir));
  gitx::PushTarget to;
  to.dest = dest;
  to.shown = src.git_dir;
  to.local_receive_pack = true;
  AW_CHECK(gitx::push_create(base, to, commit, ref));

  AW_TRY(Captured now,
         git(gitx::at(src.git_dir, {"rev-parse", "--verify", "--quiet", ref + "^{commit}"})));
  if (now.exit_code != 0 || gitx::first_line(now.out) != commit)
    return fail("after push, {} in {} is not {}", ref, src.git_dir, commit);
  return commit;
}

}  // namespace aw
