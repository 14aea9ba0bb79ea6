// Helpers shared by the files of the git room; not part of its API (see git.h).
#pragma once

#include <string>
#include <vector>

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

// True for a full hex object id.
bool is_object_id(const std::string& s);

// The clean side's steps (publish.cc), shared by publish_branch and publish.
// Reads base_commit into the call's index, applies the patch (--cached, no 3-way, no renames),
// writes the tree, and checks that the tree changes exactly the paths git reads from the patch.
struct AppliedTree {
  std::string tree;
  std::vector<std::string> changed;  // the paths the tree changes against the base
};
Result<AppliedTree> apply_to_tree(const GitCall& base, const std::string& base_commit,
                                  const std::string& patch);
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
};
// The only push in awaywork: creates `ref` at `commit`, never forces, and fails unless git
// reports the ref as newly created.
Status push_create(const GitCall& base, const PushTarget& to, const std::string& commit,
                   const std::string& ref);

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
// git ARGS in scratch against the side; a refused credential is named in the Error.
Result<Captured> remote_git(const Side& s, const std::string& scratch,
                            std::vector<std::string> args);

}  // namespace aw::gitx
