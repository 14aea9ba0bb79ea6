// collect: the patch, made through the shadow git dir (awaywork's config, index and objects) with
// the clone only as the work tree. The clone's .git is never read: not its config, hooks, index,
// info/exclude or objects, so whatever the agent left there has no say in the patch.
#include <set>

#include "git/git_internal.h"

namespace aw {

namespace {

GitCall shadow_call(const Clone& c, std::vector<std::string> args) {
  GitCall g = gitx::at(c.shadow, std::move(args));
  g.work_tree = c.work;
  g.index_file = c.shadow + "/index";
  return g;
}

// diff --cached against base, hardened; fmt adds the output format options.
std::vector<std::string> diff_args(const Clone& c, std::vector<std::string> fmt) {
  std::vector<std::string> a = {"diff",
                                "--cached",
                                "--no-renames",
                                "--no-ext-diff",
                                "--no-textconv",
                                "--no-color",
                                "--full-index",
                                "--src-prefix=a/",
                                "--dst-prefix=b/",
                                "--ignore-submodules=none"};
  a.insert(a.end(), fmt.begin(), fmt.end());
  a.push_back(c.base_commit);
  a.push_back("--");
  return a;
}

// Paths added as new files whose content git sees as binary ("-\t-\t" in numstat).
Result<std::vector<std::string>> added_binaries(const Clone& c) {
  AW_TRY(std::string status, git_ok(shadow_call(c, diff_args(c, {"--name-status", "-z"}))));
  std::set<std::string> added;
  auto st = gitx::split_z(status);
  for (size_t i = 0; i + 1 < st.size(); i += 2)
    if (st[i] == "A") added.insert(st[i + 1]);
  if (added.empty()) return std::vector<std::string>{};
  AW_TRY(std::string num, git_ok(shadow_call(c, diff_args(c, {"--numstat", "-z"}))));
  std::vector<std::string> out;
  for (const auto& rec : gitx::split_z(num)) {
    if (rec.rfind("-\t-\t", 0) != 0) continue;
    std::string path = rec.substr(4);
    if (added.count(path)) out.push_back(path);
  }
  return out;
}

// Drop index entries (mode 0 in --index-info removes the path from the index only; the file in
// the work tree is not touched).
Status unstage(const Clone& c, const std::vector<std::string>& paths, const std::string& zero) {
  std::string info;
  for (const auto& p : paths) info += "0 " + zero + "\t" + p + '\0';
  GitCall g = shadow_call(c, {"update-index", "-z", "--index-info"});
  g.stdin_data = std::move(info);
  AW_CHECK(git_ok(g));
  return {};
}

// add -A: tracked changes, deletions and untracked non-ignored files into the shadow index.
// Nested repositories become gitlinks (the check decides about them); a nested repository
// without a commit cannot be one and would fail the whole add, so it is left out and reported.
Status stage_all(const Clone& c, std::vector<std::string>& left_out) {
  const std::string head = "error: '", tail = "' does not have a commit checked out";
  // `.away/` is awaywork's folder inside the clone (a container's HOME, TMPDIR, outputs and
  // prompt): never work to collect. A pathspec, not an exclude file, so that no .gitignore the
  // agent writes (`!/.away/`) can bring it back.
  std::vector<std::string> args = {"add", "-A", "--", ":/", ":(top,exclude,literal).away"};
  for (int round = 0; round < 4; ++round) {
    AW_TRY(Captured r, git(shadow_call(c, args)));
    if (r.exit_code == 0) return {};
    size_t found = 0;
    for (size_t pos = 0; (pos = r.err.find(head, pos)) != std::string::npos;) {
      size_t end = r.err.find(tail, pos);
      size_t eol = r.err.find('\n', pos);
      if (end == std::string::npos || end > eol) break;
      std::string path = r.err.substr(pos + head.size(), end - pos - head.size());
      left_out.push_back(path);
      args.push_back(":(exclude,literal)" + path);
      ++found;
      pos = end;
    }
    if (found == 0) return fail("git add -A exited {}: {}", r.exit_code, r.err);
  }
  return fail("git add -A: too many nested repositories without a commit");
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

}  // namespace

Result<Patch> make_patch(const Clone& c) {
  // Cheap re-check: the work tree is still the folder awaywork made (verify_and_restore ran
  // before; nothing of the unit runs any more, so this cannot change under us).
  AW_TRY(DirId now, dir_id(c.work));
  if (!(now == c.work_id)) return fail("make patch: {} is not the clone awaywork made", c.work);

  std::vector<std::string> empty_repos;
  AW_CHECK(with_context(stage_all(c, empty_repos), "make patch"));
  AW_TRY(std::vector<std::string> omitted, added_binaries(c));
  if (!omitted.empty()) AW_CHECK(unstage(c, omitted, std::string(c.base_commit.size(), '0')));

  Patch p;
  p.omitted = std::move(omitted);
  p.omitted.insert(p.omitted.end(), empty_repos.begin(), empty_repos.end());
  AW_TRY(p.text, git_ok(shadow_call(c, diff_args(c, {"--patch"}))));
  AW_TRY(std::string names, git_ok(shadow_call(c, diff_args(c, {"--name-only", "-z"}))));
  p.paths = gitx::split_z(names);
  AW_TRY(std::string stat, git_ok(shadow_call(c, diff_args(c, {"--shortstat"}))));
  p.stat = trim(stat);
  return p;
}

}  // namespace aw
