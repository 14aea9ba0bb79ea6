// publish(): apply's git part against a target that is the local source repository or a remote.
// The scratch git dir is awaywork's own, fresh per attempt and removed afterwards: for a local
// target it borrows the target's objects read-only (alternates); for a remote one it fetches the
// target branch (and this unit's branch, when there is one) into itself. The agent's clone plays
// no part.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "base/gcc_quirks.h"
#include "git/git_internal.h"
#include "secrets/store.h"

namespace aw {

namespace {

// The commit ids of the wanted refs that exist on the target (ls-remote).
Result<std::map<std::string, std::string>> remote_tips(const gitx::Side& s,
                                                       const std::string& scratch,
                                                       const std::vector<std::string>& refs) {
  std::vector<std::string> args = {"ls-remote", "--", s.dest};
  args.insert(args.end(), refs.begin(), refs.end());
  AW_TRY(Captured c, gitx::remote_git(s, scratch, args));
  std::map<std::string, std::string> tips;
  size_t pos = 0;
  while (pos < c.out.size()) {
    size_t nl = c.out.find('\n', pos);
    std::string line = c.out.substr(pos, nl == std::string::npos ? nl : nl - pos);
    pos = nl == std::string::npos ? c.out.size() : nl + 1;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string name = line.substr(tab + 1);
    if (std::find(refs.begin(), refs.end(), name) != refs.end() &&
        gitx::is_object_id(line.substr(0, tab)))
      tips[name] = line.substr(0, tab);
  }
  return tips;
}

Result<std::optional<std::string>> commit_of(const std::string& git_dir, const std::string& ref) {
  AW_TRY(Captured c, git(gitx::at(git_dir, {"rev-parse", "--verify", "--quiet", "--end-of-options",
                                            ref + "^{commit}"})));
  if (c.exit_code != 0) return std::optional<std::string>{};
  return std::optional<std::string>(gitx::first_line(c.out));
}

// Which of ids (full object ids) are commits git_dir has, its own or borrowed: one cat-file.
// With `also`, the same git reads those names too (into *read, in order): --batch instead.
Result<std::set<std::string>> present_commits(const std::string& git_dir,
                                              const std::vector<std::string>& ids,
                                              const std::vector<std::string>& also = {},
                                              std::vector<gitx::CatObject>* read = nullptr) {
  if (!also.empty() && read) {
    std::vector<std::string> names = ids;
    names.insert(names.end(), also.begin(), also.end());
    AW_TRY(auto objs, gitx::cat_objects(gitx::at(git_dir, {}), names));
    std::set<std::string> got;
    for (size_t i = 0; i < ids.size(); ++i)
      if (objs[i].type == "commit") got.insert(ids[i]);
    read->assign(objs.begin() + static_cast<std::ptrdiff_t>(ids.size()), objs.end());
    return got;
  }
  GitCall g = gitx::at(git_dir, {"cat-file", "--batch-check=%(objectname) %(objecttype)"});
  for (const std::string& id : ids) g.stdin_data += id + "\n";
  AW_TRY(std::string out, git_ok(g));
  std::set<std::string> got;
  for (size_t pos = 0; pos < out.size();) {
    size_t nl = std::min(out.find('\n', pos), out.size());
    std::string line = out.substr(pos, nl - pos);
    pos = nl + 1;
    size_t sp = line.find(' ');
    if (sp != std::string::npos && line.substr(sp + 1) == "commit") got.insert(line.substr(0, sp));
  }
  return got;
}

// The remote's tips of the wanted refs: from the target's read_ref when it has one, else by
// ls-remote. A tip read_ref names must be a full commit id.
Result<std::map<std::string, std::string>> read_tips(const gitx::Side& s, const ApplyTarget& t,
                                                     const std::string& scratch,
                                                     const std::vector<std::string>& refs) {
  if (!t.read_ref) return remote_tips(s, scratch, refs);
  std::map<std::string, std::string> tips;
  for (const std::string& ref : refs) {
    AW_TRY(auto id, with_context(t.read_ref(ref), fmt::format("reading {} of {}", ref, s.shown)));
    if (id && !gitx::is_object_id(*id))
      return fail("{} of {} reads '{}', not a commit id", ref, s.shown, *id);
    if (id) tips[ref] = *id;
  }
  return tips;
}

}  // namespace

namespace gitx {

Result<Tips> find_tips(const gitx::Side& s, const ApplyTarget& at, const std::string& scratch,
                       const std::string& target_ref, const std::string& unit_ref,
                       const std::string& base, const std::vector<std::string>& also,
                       std::vector<gitx::CatObject>* read) {
  Tips t;
  if (!s.remote) {  // objects come through the alternates; refs are read, never written
    AW_TRY(auto tip, commit_of(s.dest, target_ref));
    if (!tip) return fail("{} has no {}", s.shown, target_ref);
    t.target = *tip;
    if (!unit_ref.empty()) {
      AW_TRY(t.unit, commit_of(s.dest, unit_ref));
    }
    AW_TRY(auto here, present_commits(scratch, {base}, also, read));
    t.has_base = here.count(base) > 0;
    return t;
  }
  std::vector<std::string> refs = {target_ref};
  if (!unit_ref.empty()) refs.push_back(unit_ref);
  AW_TRY(auto tips, read_tips(s, at, scratch, refs));
  if (!tips.count(target_ref)) return fail("{} has no {}", s.shown, target_ref);
  // What the scratch lacks is fetched (everything, without a copy to borrow from; nothing, when
  // the mirror is fresh), into refs of the scratch that nothing else uses: no tags, no recursion.
  std::vector<std::string> ids = {base};
  for (const auto& [_, id] : tips) ids.push_back(id);
  AW_TRY(auto here, present_commits(scratch, ids, also, read));
  if (!here.count(base)) read->clear();
  std::vector<std::string> args = {
      "fetch", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--", s.dest};
  std::map<std::string, std::string> local = {{target_ref, "refs/awaywork-target/tip"},
                                              {unit_ref, "refs/awaywork-target/unit"}};
  size_t before = args.size();
  for (const auto& [ref, id] : tips)
    if (!here.count(id)) args.push_back(ref + ":" + local[ref]);
  if (args.size() > before) {
    AW_CHECK(gitx::remote_git(s, scratch, args));
    for (auto& [ref, id] : tips) {
      if (here.count(id)) continue;
      AW_TRY(auto got, commit_of(scratch, local[ref]));
      if (!got) return fail("fetching {} from {} gave no commit", ref, s.shown);
      id = *got;  // the fetch is as fresh as the read, or fresher
    }
    if (!here.count(base)) {
      AW_TRY(here, present_commits(scratch, {base}));
    }
  }
  t.target = tips[target_ref];
  if (!unit_ref.empty() && tips.count(unit_ref)) t.unit = tips[unit_ref];
  t.has_base = here.count(base) > 0;
  return t;
}

Result<std::optional<std::string>> pushed_tip(const gitx::Side& s, const ApplyTarget& at,
                                              const std::string& scratch,
                                              const std::string& unit_ref) {
  if (!s.remote) return commit_of(s.dest, unit_ref);
  if (at.read_ref) {
    AW_TRY(auto tips, read_tips(s, at, scratch, {unit_ref}));
    if (tips.count(unit_ref)) return std::optional<std::string>(tips[unit_ref]);
  }
  AW_TRY(auto after, remote_tips(s, scratch, {unit_ref}));
  if (after.count(unit_ref)) return std::optional<std::string>(after[unit_ref]);
  return std::optional<std::string>{};
}

}  // namespace gitx

namespace {

// Is an existing unit branch this unit's own work (its marker and the same tree)?
Result<bool> is_same_unit(const GitCall& base, const std::string& commit, const std::string& marker,
                          const std::string& tree) {
  GitCall g = base;
  g.args = {"cat-file", "commit", commit};
  AW_TRY(std::string obj, git_ok(g));
  size_t body = obj.find("\n\n");
  std::string head = obj.substr(0, body);
  AW_NO_WRESTRICT(std::string msg =
                      body == std::string::npos ? "" : "\n" + obj.substr(body + 2) + "\n";)
  bool marked = msg.find("\n" + marker + "\n") != std::string::npos;
  if (!marked) return false;
  if (gitx::first_line(head) != "tree " + tree)
    return fail("it carries this unit's marker but a different change");
  return true;
}

}  // namespace

namespace gitx {

Result<gitx::ObjectStore> mirror_objects(const std::string& mirror, const std::string& base) {
  struct stat st {};
  std::string objects = mirror + "/objects";
  if (::lstat(objects.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return fail("the mirror {} has no objects folder", mirror);
  return gitx::ObjectStore{gitx::hash_format_of(base), objects};
}

Result<std::string> make_scratch(const std::string& scratch_dir, const std::string& prefix) {
  AW_CHECK(make_dirs(scratch_dir));
  std::string tmpl = scratch_dir + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) return fail("mkdtemp in {}: {}", scratch_dir, errno_text(errno));
  return tmpl;
}

ScratchCleanup::~ScratchCleanup() {
  if (remove)
    remove(path);
  else
    (void)remove_tree(path);
}

Result<GitCall> make_scratch_git_dir(const std::string& dir, const Side& side,
                                     const ApplyTarget& target, const std::string& base_commit,
                                     const std::string& index_name) {
  const std::string& borrow = side.remote ? target.borrow_objects_of : side.dest;
  if (borrow.empty()) {
    AW_CHECK(make_own_git_dir(dir));
  } else if (side.remote) {
    AW_TRY(ObjectStore store, mirror_objects(borrow, base_commit));
    AW_CHECK(make_borrowing_git_dir(dir, store.objects, store.format));
  } else {
    AW_TRY(ObjectStore store, object_store(borrow));
    AW_CHECK(make_borrowing_git_dir(dir, store.objects, store.format));
  }
  GitCall base = at(dir, {});
  base.index_file = dir + "/" + index_name;
  return base;
}

Result<ScratchTips> scratch_tips(const std::string& tmpl, const Side& side,
                                 const ApplyTarget& target, const std::string& base_commit,
                                 const std::vector<std::string>& checked_paths,
                                 const std::string& index_name, const std::string& target_ref,
                                 const std::string& unit_ref) {
  ScratchTips st;
  st.dir = tmpl + "/git";
  AW_TRY(st.base, make_scratch_git_dir(st.dir, side, target, base_commit, index_name));
  AW_TRY(auto folder_names, base_folder_names(base_commit, checked_paths));
  // The folders are read with the tips' presence: one git for both.
  AW_TRY(st.tips, find_tips(side, target, st.dir, target_ref, unit_ref, base_commit, folder_names,
                            &st.folders_read));
  return st;
}

Result<AppliedTree> apply_checked(const GitCall& base, const std::string& base_commit,
                                  const std::string& patch,
                                  const std::vector<std::string>& checked_paths,
                                  const std::vector<CatObject>* folders_read) {
  AW_TRY(AppliedTree applied, apply_sparse(base, base_commit, patch, checked_paths, folders_read));
  if (sorted_unique(applied.changed) != sorted_unique(checked_paths))
    return fail("the applied patch changes other paths than the checked list; nothing pushed");
  return applied;
}

}  // namespace gitx

namespace {

Status check_request(const PublishRequest& req) {
  if (req.patch.empty()) return fail("nothing to publish: the patch is empty");
  if (!gitx::is_object_id(req.base_commit))
    return fail("base '{}' is not a full commit id", req.base_commit);
  const std::string& id = req.unit_id;
  bool ok = !id.empty() && id.size() <= 64;
  for (char c : id)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.');
  if (!ok || id[0] == '.' || id[0] == '-' || id.find("..") != std::string::npos ||
      id.ends_with(".lock"))
    return fail("invalid unit id '{}'", id);
  const std::string& b = req.target.branch;
  if (!b.empty() && (b[0] == '-' || !gitx::valid_ref_name("refs/heads/" + b)))
    return fail("invalid target branch '{}'", b);
  // The fork's pull request exception (PublishRequest::start_ref): refs/pull/N/head, no other.
  const std::string& s = req.start_ref;
  if (!s.empty()) {
    const std::string pre = "refs/pull/", post = "/head";
    bool pull = s.starts_with(pre) && s.ends_with(post) && s.size() > pre.size() + post.size() &&
                s[pre.size()] != '0';
    for (size_t i = pre.size(); pull && i < s.size() - post.size(); ++i)
      pull = s[i] >= '0' && s[i] <= '9';
    if (!pull) return fail("start ref '{}' is not a pull request's head (refs/pull/N/head)", s);
  }
  return {};
}

}  // namespace

namespace gitx {
// A fresh bare git dir with nothing in it but what awaywork writes.
Status make_own_git_dir(const std::string& dir) {
  for (const char* sub :
       {"", "/objects/info", "/objects/pack", "/refs/heads", "/refs/tags", "/info"})
    AW_CHECK(make_dirs(dir + sub));
  AW_CHECK(write_file(dir + "/config", gitx::minimal_config(true, "sha1")));
  AW_CHECK(write_file(dir + "/HEAD", "ref: refs/heads/awaywork-none\n"));
  AW_CHECK(write_file(dir + "/info/attributes", gitx::kNeutralAttributes));
  return {};
}

}  // namespace gitx

ApplyTarget local_target(const SourceRepo& src, const std::string& base_ref) {
  ApplyTarget t;
  t.git_dir = src.git_dir;
  if (base_ref.empty() || gitx::is_object_id(base_ref)) return t;
  auto c = git(gitx::at(src.git_dir, {"rev-parse", "--verify", "--quiet", "--end-of-options",
                                      "refs/heads/" + base_ref}));
  if (c && c->exit_code == 0) t.branch = base_ref;
  return t;
}

std::string unit_marker(const std::string& unit_id) {
  return "Awaywork-Unit: " + unit_id;
}

Result<PublishResult> publish(const PublishRequest& req) {
  AW_CHECK(check_request(req));
  AW_TRY(gitx::Side side, gitx::open_side(req.target, req.askpass));
  PublishResult res;
  res.branch = req.branch_prefix + req.unit_id;
  std::string unit_ref = "refs/heads/" + res.branch;
  std::string target_ref = !req.start_ref.empty()      ? req.start_ref
                           : req.target.branch.empty() ? "HEAD"
                                                       : "refs/heads/" + req.target.branch;

  AW_TRY(std::string tmpl, gitx::make_scratch(req.scratch_dir, "apply"));
  gitx::ScratchCleanup cleanup{tmpl, req.remove_scratch};
  AW_TRY(gitx::ScratchTips st,
         gitx::scratch_tips(tmpl, side, req.target, req.base_commit, req.checked_paths,
                            "apply-index", target_ref, unit_ref));
  auto& [dir, base, tips, folders_read] = st;
  std::string not_ancestor =
      fmt::format("base {} is not an ancestor of {} on {} (now {}); nothing pushed",
                  req.base_commit.substr(0, 12), target_ref, side.shown, tips.target.substr(0, 12));
  if (!tips.has_base) return fail("{}", not_ancestor);

  AW_TRY(gitx::AppliedTree applied,
         gitx::apply_checked(base, req.base_commit, req.patch, req.checked_paths, &folders_read));
  const std::string& tree = applied.tree;

  std::string marker = unit_marker(req.unit_id);
  if (tips.unit) {
    AW_TRY(bool same, with_context(is_same_unit(base, *tips.unit, marker, tree),
                                   fmt::format("{} exists on {}", unit_ref, side.shown)));
    if (!same)
      return fail("{} exists on {} without this unit's marker; not overwritten", unit_ref,
                  side.shown);
    res.commit = *tips.unit;
    res.already_applied = true;
    return res;
  }

  if (tips.target != req.base_commit) {  // a commit is its own ancestor: no git for that
    GitCall anc = base;
    anc.args = {"merge-base", "--is-ancestor", req.base_commit, tips.target};
    AW_TRY(Captured a, git(anc));
    if (a.exit_code == 1) return fail("{}", not_ancestor);
    if (a.exit_code != 0) return fail("merge-base --is-ancestor: {}", gitx::first_line(a.err));
  }

  std::string message = req.message;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  message += "\n\n" + marker + "\n";
  AW_TRY(res.commit, gitx::commit_tree(base, tree, req.base_commit, req.who, message));

  gitx::PushTarget to = gitx::push_target(side);
  AW_CHECK(gitx::push_create(base, to, res.commit, unit_ref));

  AW_TRY(auto now, gitx::pushed_tip(side, req.target, dir, unit_ref));

  if (now != res.commit)
    return fail("after push, {} on {} is not {}", unit_ref, side.shown, res.commit);
  return res;
}

}  // namespace aw
