// Helpers shared by the files of the git room; not part of its API (see git.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/hex.h"  // to_hex(raw): an object id from its digest
#include "git/git.h"

namespace aw::gitx {

// A GitCall on git_dir (no work tree, default index).
GitCall at(const std::string& git_dir, std::vector<std::string> args);

// git() with extra environment entries ("NAME=value"), e.g. the commit identity. Only names that
// awaywork chooses; the caller's environment is never inherited.
Result<Captured> run(const GitCall& call, const std::vector<std::string>& extra_env);
Result<std::string> run_ok(const GitCall& call, const std::vector<std::string>& extra_env);

// A git dir's object format ("sha1" or "sha256") and absolute objects folder (following commondir
// for linked worktrees), read by one git.
struct ObjectStore {
  std::string format, objects;
};
Result<ObjectStore> object_store(const std::string& git_dir);

// The absolute common git dir (where refs/heads live; differs for a linked worktree).
Result<std::string> common_dir(const std::string& git_dir);

// A config file awaywork writes from nothing: no hooks, no fsmonitor, no filters, stat checks
// at their strictest. bare selects core.bare.
std::string minimal_config(bool bare, const std::string& format);

// $GIT_DIR/info/attributes for awaywork's git dirs: it has the highest precedence, so it
// unsets every attribute that converts content (filters, eol, ident, encodings) or hides a diff,
// whatever the work tree's .gitattributes say. awaywork sees and publishes the raw bytes.
extern const char kNeutralAttributes[];

// The clone's $GIT_DIR/info/exclude: `.away/` (HOME, TMPDIR and outputs under isolation container)
// is not the agent's work, for git run inside. Collecting reads the shadow's, never this one.
extern const char kCloneExclude[];

// What the clone's .git/info holds, as awaywork wrote it (name, content): after every phase it is
// made exactly this again (clone_verify.cc).
struct InfoFile {
  const char* name;
  const char* content;
};
extern const InfoFile kCloneInfo[2];

// Write the files of a fresh bare git dir whose objects are borrowed (read-only) from
// borrow_objects through objects/info/alternates.
Status make_borrowing_git_dir(const std::string& dir, const std::string& borrow_objects,
                              const std::string& format);

// Split "a\0b\0" into {"a","b"}.
std::vector<std::string> split_z(const std::string& s);

// The text up to the first newline.
std::string first_line(const std::string& s);

// v sorted, duplicates removed (path lists compared as sets).
std::vector<std::string> sorted_unique(std::vector<std::string> v);

// git's rules for a ref name (git-check-ref-format(1), no --allow-onelevel, no --normalize),
// checked without a git: no "..", "@{", "//", control characters, space, ~ ^ : ? * [ \, no part
// starting with '.' or ending in ".lock", not ending in '/' or '.', not "@".
bool valid_ref_name(const std::string& ref);

// True for a full hex object id.
bool is_object_id(const std::string& s);

// The clean side's steps (publish.cc, sparse_apply.cc), shared by publish_branch and publish.
struct AppliedTree {
  std::string tree;
  std::vector<std::string> changed;  // the paths the tree changes against the base
};
// ---- the clean side's tree without an index of the whole base (objects.cc, sparse_apply.cc) --
// apply_sparse: the patch applied (by git, --cached) to an index holding only `paths` (the
// checked paths), the new tree written from the base's folders along them, and a check by git's
// diff-tree that it changes exactly the paths git reads from the patch.
// base.index_file is the index it uses; the new trees go to base.git_dir's objects folder.
// folders_read: what cat_objects said for base_folder_names(), when the caller asked already.
struct CatObject;
Result<AppliedTree> apply_sparse(const GitCall& base, const std::string& base_commit,
                                 const std::string& patch, const std::vector<std::string>& paths,
                                 const std::vector<CatObject>* folders_read = nullptr);
// The names apply_sparse gives cat-file for the base's folders along the paths, in its order.
Result<std::vector<std::string>> base_folder_names(const std::string& base_commit,
                                                   const std::vector<std::string>& paths);
// The paths git reads from a patch (git apply --numstat), for a caller without a checked list.
Result<std::vector<std::string>> patch_paths(const GitCall& base, const std::string& patch);
// Refuses what no tree awaywork writes may hold: absolute, empty, ".", ".." or ".git" parts
// (any case, NTFS's trailing dots and spaces ignored), control characters, backslashes.
Status check_tree_path(const std::string& path);

struct TreeEntry {
  std::string mode;  // as the tree has it: "100644", "40000", ...
  std::string name;
  std::string id;  // hex
  bool is_tree() const;
};
struct CatObject {
  std::string type, content;  // type "" = missing
};
// What each name resolves to, by one `git cat-file --batch`, in order.
Result<std::vector<CatObject>> cat_objects(const GitCall& base,
                                           const std::vector<std::string>& names);
Result<std::vector<TreeEntry>> parse_tree(const std::string& content, const std::string& format);
// A tree's bytes, entries in git's order (a folder's name sorts as if it ended in '/').
Result<std::string> tree_content(std::vector<TreeEntry> entries);
// "sha256" for a 64-digit id, else "sha1".
std::string hash_format_of(const std::string& id);
Result<std::string> from_hex(const std::string& id);
std::string digest(const std::string& format, std::string_view data);  // raw bytes
std::string object_id(const std::string& type, const std::string& content,
                      const std::string& format);
// Writes the object loose into objects_dir (awaywork's own scratch), returns its id.
Result<std::string> write_loose_object(const std::string& objects_dir, const std::string& type,
                                       const std::string& content, const std::string& format);
// An index file (version 2, no stat data: only for --cached use) and its entries read back.
struct IndexEntry {
  std::string path;
  uint32_t mode = 0;  // 0100644, 0100755, 0120000, 0160000
  std::string id;
};
Result<std::string> index_bytes(std::vector<IndexEntry> entries, const std::string& format);
Result<std::vector<IndexEntry>> parse_index(const std::string& bytes, const std::string& format);

// diff-tree -r --name-only between two trees or commits (no renames, raw paths).
Result<std::vector<std::string>> changed_paths(const GitCall& base, const std::string& from,
                                               const std::string& to);
Result<std::string> commit_tree(const GitCall& base, const std::string& tree,
                                const std::string& parent, const Identity& who,
                                const std::string& message);

// Where push_create pushes.
struct PushTarget {
  std::string dest;                   // a git dir path or a URL
  std::string shown;                  // for messages (never carries a secret)
  bool local_receive_pack = false;    // a repository on this machine: harden its receive-pack
  std::vector<std::string> pre_args;  // -c options placed before the subcommand
  std::vector<std::string> env;       // extra environment of the git process
  bool remote = false;                // a remote (maybe with a credential): base's config checked
};
// The only push in awaywork: creates `ref` at `commit`, never forces, and fails unless git
// reports the ref as newly created.
Status push_create(const GitCall& base, const PushTarget& to, const std::string& commit,
                   const std::string& ref);
// The hardened `git push --porcelain` of commit to ref at `to` (publish.cc), shared by
// push_create and push_fast_forward; `lease` ("" for none) is a --force-with-lease option.
Result<Captured> run_push(const GitCall& base, const PushTarget& to, const std::string& commit,
                          const std::string& ref, const std::string& lease);

// scheme://[userinfo@]host/... split (askpass.cc); file:// has an empty host.
struct UrlParts {
  std::string scheme, userinfo, host;
};
Result<UrlParts> url_parts(const std::string& url);

// The environment entries that make git ask awaywork's askpass for user and secret, for host
// only (askpass.cc explains why this route).
Result<std::vector<std::string>> askpass_env(const std::string& askpass, const std::string& host,
                                             const std::string& user, const std::string& secret);

// A fresh bare git dir with nothing in it but what awaywork writes (apply_target.cc).
Status make_own_git_dir(const std::string& dir);

// Before a git that talks to a remote runs in git_dir (config_check.cc): the config git reads
// there (includes and all) holds exactly what minimal_config writes for a bare git dir, else an
// Error naming each other key and its file. Such a key (http.<url>.proxy, url.<x>.insteadOf, ...)
// can send the request, and the credential, elsewhere; -c cannot pin them all.
Status check_own_config(const std::string& git_dir);

// What awaywork's git knows of a push or fetch target (remote_side.cc).
struct Side {
  bool remote = false;
  std::string dest;                   // git dir or URL, as git is given it
  std::string shown;                  // for messages
  std::vector<std::string> pre_args;  // -c options a remote needs before the subcommand
  std::vector<std::string> env;       // the askpass environment when a credential is used
  std::string credential;             // its name, for messages
};

// The target's URL checked, the -c options for exactly its scheme (redirects off), and, with a
// credential, the askpass environment (the secret from t.secret_value or t.secrets).
Result<Side> open_side(const ApplyTarget& t, const std::string& askpass);
// Where a publish to the side pushes: a local repository, or a file:// URL, hardens its
// receive-pack. Both publishes (apply_target.cc, fast_forward.cc) push so.
PushTarget push_target(const Side& side);
// git ARGS in scratch against the side; a refused credential is named in the Error.
Result<Captured> remote_git(const Side& s, const std::string& scratch,
                            std::vector<std::string> args);

// ---- a target's tips (apply_target.cc), shared by publish and publish_fast_forward ----------

// The tips of the target branch and of the unit's branch, with their objects in the scratch, and
// whether the scratch has the base (it has the target's whole history: a base absent from it is
// not on it).
struct Tips {
  std::string target;
  std::optional<std::string> unit;
  bool has_base = false;
};
// also/read: names read by the same git (the base's folders for apply_sparse); read is left
// empty when the base came only with a fetch. unit_ref "": only the target's tip is read.
Result<Tips> find_tips(const Side& s, const ApplyTarget& at, const std::string& scratch,
                       const std::string& target_ref, const std::string& unit_ref,
                       const std::string& base, const std::vector<std::string>& also,
                       std::vector<CatObject>* read);
// A publish's scratch: its git dir tmpl/git (make_scratch_git_dir with index_name), and the tips
// find_tips reads from there (unit_ref may be ""), with the base's folders of checked_paths read
// in the same git (folders_read, for apply_checked). Both publishes (apply_target.cc,
// fast_forward.cc) start so, after make_scratch and its ScratchCleanup:
//   AW_TRY(ScratchTips st, scratch_tips(tmpl, side, target, base, paths, "apply-index", ...));
//   auto& [dir, base, tips, folders_read] = st;
struct ScratchTips {
  std::string dir;
  GitCall base;
  Tips tips;
  std::vector<CatObject> folders_read;
};
Result<ScratchTips> scratch_tips(const std::string& tmpl, const Side& side,
                                 const ApplyTarget& target, const std::string& base_commit,
                                 const std::vector<std::string>& checked_paths,
                                 const std::string& index_name, const std::string& target_ref,
                                 const std::string& unit_ref);
// After the push: the remote's ref, read back (read_ref, and git's own ls-remote when read_ref
// does not see the branch yet: a forge's API may lag its git a moment).
Result<std::optional<std::string>> pushed_tip(const Side& s, const ApplyTarget& at,
                                              const std::string& scratch, const std::string& ref);
// ---- the publish scratch (apply_target.cc), shared by publish and publish_fast_forward ----

// A fresh folder scratch_dir/PREFIX-XXXXXX (mkdtemp), made with its parents.
Result<std::string> make_scratch(const std::string& scratch_dir, const std::string& prefix);
// Removes the scratch however the publish ends: with remove when set, else remove_tree.
struct ScratchCleanup {
  std::string path;
  const std::function<void(const std::string&)>& remove;
  ~ScratchCleanup();
};
// The scratch's git dir at dir: its own, or borrowing the objects of the side's local copy. A
// remote target with a local copy (awaywork's mirror) borrows its objects: the fetch and the
// push then move only what the copy lacks. The git call there, with the index dir/INDEX_NAME.
Result<GitCall> make_scratch_git_dir(const std::string& dir, const Side& side,
                                     const ApplyTarget& target, const std::string& base_commit,
                                     const std::string& index_name);
// apply_sparse of the checked patch, then an Error unless its tree changes exactly the checked
// paths (nothing is pushed then).
Result<AppliedTree> apply_checked(const GitCall& base, const std::string& base_commit,
                                  const std::string& patch,
                                  const std::vector<std::string>& checked_paths,
                                  const std::vector<CatObject>* folders_read);

// The objects of awaywork's own mirror (a bare git dir it made, sha1 unless the base says
// otherwise): known without asking git.
Result<ObjectStore> mirror_objects(const std::string& mirror, const std::string& base);

}  // namespace aw::gitx
