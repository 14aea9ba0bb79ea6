// publish_fast_forward(): a pull request's follow-up publishes one commit on the pull request's
// own branch. The commit is made as publish() makes its own (a scratch git dir awaywork owns, the
// checked patch applied to the unit's start, the paths compared with the checked list, the
// marker), and its only parent is the commit the unit started from: the branch only ever moves
// forward, and only from where the unit saw it. Someone who pushed meanwhile (a maintainer's
// commit, a rebase, a rewind) keeps their branch: nothing is pushed and the Error says so.
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <functional>

#include "git/git_internal.h"

namespace aw {

namespace {

// The compare-and-swap push: `ref` goes from `expected` to `commit` (a child of expected) only if
// the target still has it at expected. The lease is checked by git against the advertisement and
// sent as the command's old value, which receive-pack's ref transaction verifies as it writes:
// no window between the check and the write. The refspec has no '+', and the commit descends from
// the expected value, so no history is ever dropped; the porcelain line must say " " (a
// fast-forward) from expected. `stale`: the target refused because the ref is elsewhere.
Status push_fast_forward(const GitCall& base, const gitx::PushTarget& to, const std::string& commit,
                         const std::string& ref, const std::string& expected, bool& stale) {
  stale = false;
  AW_TRY(Captured c,
         gitx::run_push(base, to, commit, ref, "--force-with-lease=" + ref + ":" + expected));
  std::string line = "\t" + commit + ":" + ref + "\t";
  size_t at = c.out.find(line);
  if (c.exit_code == 0 && at != std::string::npos && at > 0 && c.out[at - 1] == ' ') {
    std::string summary = gitx::first_line(c.out.substr(at + line.size()));
    size_t dots = summary.find("..");
    if (dots != std::string::npos && dots >= 7 && expected.starts_with(summary.substr(0, dots)))
      return {};
  }
  stale = c.out.find("(stale info)") != std::string::npos ||
          c.out.find("(non-fast-forward)") != std::string::npos ||
          c.out.find("(fetch first)") != std::string::npos;
  return fail("push {} to {} refused (exit {}): {}{}", ref, to.shown, c.exit_code, c.out, c.err);
}

// The commit at `tip` is this unit's: its only parent is base, its tree is `tree` and its message
// carries the marker line.
Result<bool> is_this_units(const GitCall& base, const std::string& tip, const std::string& parent,
                           const std::string& tree, const std::string& marker) {
  GitCall g = base;
  g.args = {"cat-file", "commit", tip};
  AW_TRY(std::string obj, git_ok(g));
  size_t body = obj.find("\n\n");
  std::string tree_seen;
  std::vector<std::string> parents;
  for (size_t pos = 0; pos < std::min(body, obj.size());) {
    size_t nl = std::min(obj.find('\n', pos), obj.size());
    std::string line = obj.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.starts_with("tree ")) tree_seen = line.substr(5);
    if (line.starts_with("parent ")) parents.push_back(line.substr(7));
  }
  // Built by appending: GCC 12 at -O2 and above misreads `"\n" + string` as an overlapping copy
  // (-Wrestrict, a false positive that -Werror makes fatal).
  std::string msg = "\n";
  if (body != std::string::npos) msg.append(obj, body + 2).append("\n");
  std::string wanted = "\n";
  wanted.append(marker).append("\n");
  return tree_seen == tree && parents == std::vector<std::string>{parent} &&
         body != std::string::npos && msg.find(wanted) != std::string::npos;
}

std::string moved_message(const std::string& ref, const std::string& shown, const std::string& now,
                          const std::string& base) {
  return fmt::format(
      "{} on {} moved: it is at {} now, not at {} where this unit started; nothing was pushed "
      "(awaywork never pushes over someone else's commits: the next unit starts from the new "
      "head)",
      ref, shown, now.empty() ? "an unknown commit" : now.substr(0, 12), base.substr(0, 12));
}

}  // namespace

Result<FastForwardResult> publish_fast_forward(const FastForwardRequest& req) {
  if (req.patch.empty()) return fail("nothing to publish: the patch is empty");
  if (!gitx::is_object_id(req.base_commit))
    return fail("base '{}' is not a full commit id", req.base_commit);
  const std::string& b = req.target.branch;
  if (b.empty() || b[0] == '-' || !gitx::valid_ref_name("refs/heads/" + b))
    return fail("invalid branch '{}' to publish a follow-up on", b);
  const std::string& id = req.unit_id;
  bool id_ok = !id.empty() && id.size() <= 64 && id[0] != '.' && id[0] != '-';
  for (char c : id)
    id_ok =
        id_ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  if (!id_ok) return fail("invalid unit id '{}'", id);

  AW_TRY(gitx::Side side, gitx::open_side(req.target, req.askpass));
  FastForwardResult res;
  res.branch = b;
  std::string ref = "refs/heads/" + b;

  AW_TRY(std::string tmpl, gitx::make_scratch(req.scratch_dir, "follow"));
  gitx::ScratchCleanup cleanup{tmpl, req.remove_scratch};
  AW_TRY(gitx::ScratchTips st, gitx::scratch_tips(tmpl, side, req.target, req.base_commit,
                                                  req.checked_paths, "follow-index", ref, ""));
  auto& [dir, base, tips, folders_read] = st;
  // Without the start in the scratch (the branch was rewritten without it) there is nothing to
  // apply the patch to, and the branch moved anyway.
  if (!tips.has_base)
    return fail("{}", moved_message(ref, side.shown, tips.target, req.base_commit));

  AW_TRY(gitx::AppliedTree applied,
         gitx::apply_checked(base, req.base_commit, req.patch, req.checked_paths, &folders_read));
  std::string marker = unit_marker(req.unit_id);

  if (tips.target != req.base_commit) {
    // A replay (apply ID again) finds its own commit on top: done. Anything else moved it.
    AW_TRY(bool mine, is_this_units(base, tips.target, req.base_commit, applied.tree, marker));
    if (!mine) return fail("{}", moved_message(ref, side.shown, tips.target, req.base_commit));
    res.commit = tips.target;
    res.already_applied = true;
    return res;
  }

  std::string message = req.message;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  message += "\n\n" + marker + "\n";
  AW_TRY(res.commit, gitx::commit_tree(base, applied.tree, req.base_commit, req.who, message));

  gitx::PushTarget to = gitx::push_target(side);
  bool stale = false;
  Status pushed = push_fast_forward(base, to, res.commit, ref, req.base_commit, stale);
  if (!pushed) {
    if (!stale) return tl::unexpected<Error>(pushed.error());
    // Moved between the read and the push: the target refused, nothing was written. Say where
    // it is now when the target tells (a failed read is no reason to hide that it moved).
    auto now = gitx::pushed_tip(side, req.target, dir, ref);
    return fail("{}", moved_message(ref, side.shown, now && *now ? **now : "", req.base_commit));
  }

  AW_TRY(auto now, gitx::pushed_tip(side, req.target, dir, ref));
  if (now != res.commit) return fail("after push, {} on {} is not {}", ref, side.shown, res.commit);
  return res;
}

}  // namespace aw
