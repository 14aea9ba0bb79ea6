// awaywork's own git (DESIGN.md section 5). Every invocation is hardened: no system or global
// config, no hooks, no fsmonitor, no external diff or textconv, no renames, and it never runs with
// the agent's clone as its git dir: the patch is made through a *shadow* git dir that awaywork
// owns (its own config and index, objects borrowed read-only from the source), with the clone only
// as the work tree.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fs.h"
#include "base/result.h"
#include "proc/capture.h"

namespace aw {

// Run `git ARGS` hardened, with git_dir/work_tree given explicitly (never discovered from cwd).
struct GitCall {
  std::string git_dir;     // --git-dir
  std::string work_tree;   // --work-tree ("" = none)
  std::string index_file;  // GIT_INDEX_FILE ("" = default)
  std::string object_dir;  // GIT_OBJECT_DIRECTORY ("" = default)
  std::vector<std::string> args;
  std::string stdin_data;
};
Result<Captured> git(const GitCall& call);
// Same, but a non-zero exit is an Error naming the command and its stderr.
Result<std::string> git_ok(const GitCall& call);

// The owner's repository a unit starts from. Trusted, but awaywork never changes its working
// tree, index, HEAD or any existing ref.
struct SourceRepo {
  std::string git_dir;    // absolute
  std::string work_tree;  // absolute; "" for a bare repository
};
Result<SourceRepo> open_source(const std::string& path);
// Full commit id of ref (branch, tag, commit) in the source; "" ref = HEAD.
Result<std::string> resolve_commit(const SourceRepo& src, const std::string& ref);

// The agent's clone and awaywork's shadow of it.
struct Clone {
  std::string work;    // runs/<id>/work: the clone (agent-writable)
  std::string shadow;  // runs/<id>/git: awaywork's bare git dir for collecting the patch
  std::string base_commit;
  std::string branch;  // the branch checked out in the clone (the base's name, or "awaywork-base")
  DirId work_id, dotgit_id;
  std::string saved_config;  // the clone's .git/config as awaywork wrote it
};
// git clone --no-hardlinks (objects copied, never linked), check out base_commit on a branch,
// then build the shadow: alternates to the source's objects, awaywork's config, a copy of the
// clone's fresh index (mtime preserved so racy-git detection still works).
Result<Clone> make_clone(const SourceRepo& src, const std::string& base_commit,
                         const std::string& branch, const std::string& work_dir,
                         const std::string& shadow_dir);

// After every phase: the clone and its .git are the same directories (lstat: device, inode, not
// links); .git has no alternates, commondir or gitdir redirection. Then restore .git/config from
// the saved copy, remove hooks, and make .git/info exactly what make_clone wrote (its neutral
// attributes and exclude; anything else there removed). An Error means the clone is lost. Notes
// what was repaired.
Status verify_and_restore(const Clone& clone, std::vector<std::string>& notes);

// The agent CLIs' settings and instruction paths at a clone's top (.claude/, .codex/, .gemini/,
// .cursor/, .opencode/, .agents/, .mcp.json, AGENTS.md, CLAUDE.md, GEMINI.md), and the names a
// CLI also loads from any folder below (AGENTS.md, CLAUDE.md, GEMINI.md, .claude/): what one
// agent round writes there must not become what the next round's CLI loads (DESIGN.md 12).
extern const std::vector<std::string> kAgentInstructionPaths;
extern const std::vector<std::string> kAgentNestedNames;
// What the base commit holds at those paths, read once from the shadow.
struct BaseSnapshot {
  struct Entry {
    std::string path;
    unsigned mode = 0;  // 100644, 100755 or 120000
    std::string data;   // a file's content or a link's target
  };
  std::vector<std::string> tops;
  std::vector<std::string> nested;  // names matched below the top
  std::vector<Entry> entries;       // sorted by path
};
Result<BaseSnapshot> snapshot_base_paths(const Clone& clone, const std::vector<std::string>& tops,
                                         const std::vector<std::string>& nested = {});
// The same paths as another commit of the clone's source has them (a full commit id): a pull
// request's follow-up clones the pull request's head, but its agent gets the base branch's
// instructions and settings, never the head's (its author must not instruct the agent; issue 26).
Result<BaseSnapshot> snapshot_paths_at(const Clone& clone, const std::string& commit,
                                       const std::vector<std::string>& tops,
                                       const std::vector<std::string>& nested = {});
// Each of the snapshot's top paths in the clone, and each path below the top whose last component
// is a nested name, made exactly what the base has (removed when the base has none; a nested one
// the base has is put back only where its folder still is); one that already is stays untouched.
// Works from a descriptor of the verified clone folder and never follows a link (base_paths.cc):
// the walk never enters a linked folder, .git or .away. notes: what was put back. Only between
// phases, when nothing of the unit runs.
Status restore_base_paths(const Clone& clone, const BaseSnapshot& snapshot,
                          std::vector<std::string>& notes);

// Between agent rounds: no git repository below the clone's top. Every `.git` below it (a folder,
// a gitfile or a link, at any depth, `.away` included) is removed, and so is `.git/modules`: git
// at the top recurses into a nested repository that a gitlink in the agent's index names and runs
// there with that repository's config (core.fsmonitor, hooks, filters), so one a round planted
// would run in the next round's first `git status`. The folders stay as plain files of the clone's
// own repository; the patch refuses `.git` at any depth, so nothing publishable is lost. From a
// descriptor of the verified clone folder, never through a link; refuses a tree deeper than 256
// folders (an Error loses the clone). notes: what was removed. Only between phases.
Status remove_nested_repos(const Clone& clone, std::vector<std::string>& notes);

struct Patch {
  std::string text;                  // git diff --cached <base>, hardened; may be empty
  std::vector<std::string> paths;    // changed paths, in diff order
  std::string stat;                  // "3 files changed, 10 insertions(+), 2 deletions(-)"
  std::vector<std::string> omitted;  // untracked binary files left out of the patch
};
// Everything in the work tree (tracked changes and untracked, non-ignored files) against base.
Result<Patch> make_patch(const Clone& clone);

struct Identity {
  std::string name = "awaywork";
  std::string email = "awaywork@localhost";
};
// The clean side: apply `patch` (text) to base_commit in a scratch git dir awaywork owns (never
// the agent's clone), commit with identity, then create refs/heads/<branch> in the source
// without touching its working tree, index or HEAD. Refuses when the branch already exists;
// never forces. Returns the new commit id.
Result<std::string> publish_branch(const SourceRepo& src, const std::string& base_commit,
                                   const std::string& patch, const std::string& branch,
                                   const Identity& who, const std::string& message,
                                   const std::string& scratch_dir);

// ---- apply to a target (DESIGN.md section 2 "apply") ----------------------------------------

class SecretStore;  // secrets/store.h

// Where apply pushes: the local source repository (the foundation's default) or a remote.
struct ApplyTarget {
  std::string git_dir;     // a repository on this machine (absolute), or
  std::string url;         // https://, http://, git://, file:// (never user:password in it)
  std::string credential;  // http(s): the secret's name in `secrets`; "" = anonymous
  std::string username = "x-access-token";  // sent with the credential
  SecretStore* secrets = nullptr;           // read only when credential is set, and
  std::string secret_value;                 // not when its value is given here (a forge token)
  std::string ca_file;  // https: the CA bundle git trusts for this remote (http.sslCAInfo)
  std::string borrow_objects_of;  // a remote's local copy (a mirror) to borrow from
  std::string branch;             // the target branch the base must be on; "" = the target's HEAD
  // A remote's refs read by other means than git's ls-remote (a forge's API answers in about a
  // millisecond where git's round trip costs tens): the commit id `refs/heads/NAME` names on
  // the remote, nullopt when absent. When set, it replaces the ls-remote before the push and the
  // one verifying it; the commits it names are fetched only when the borrowed copy lacks them.
  std::function<Result<std::optional<std::string>>(const std::string& ref)> read_ref;
};

struct PublishRequest {
  ApplyTarget target;
  std::string unit_id;  // the branch is <branch_prefix><unit_id>
  std::string branch_prefix = "awaywork/";
  std::string base_commit;                 // full id
  std::string patch;                       // the checked patch
  std::vector<std::string> checked_paths;  // the verdict's paths: the applied tree must match
  Identity who;
  std::string message;      // the marker trailer is appended
  std::string scratch_dir;  // a fresh folder is made (and removed) inside
  std::string askpass;      // absolute path of awaywork's askpass (the awaywork binary): needed
                            // only with a credential
  // How the attempt's scratch folder goes once publish is done with it (success or not): unset,
  // it is removed before publish returns; a caller may remove it off the critical path instead.
  std::function<void(const std::string&)> remove_scratch;
  // The one exception to "base_commit is on target.branch" (issue 26): a fork's pull request,
  // whose head is on no branch of the target. Then base_commit must be an ancestor of this ref,
  // `refs/pull/N/head` (which GitHub serves on the base repository, read-only) and nothing
  // else; it is only read, never pushed to. "" = target.branch's rule.
  std::string start_ref;
};

struct PublishResult {
  std::string branch;  // awaywork/<unit_id>
  std::string commit;
  bool already_applied = false;  // the branch was there with this unit's marker and tree
};

// The clean side, generalized: in a scratch git dir awaywork owns (objects borrowed from a local
// target, or fetched fresh from a remote one), require base_commit to be an ancestor of the
// target branch, apply the patch, require the changed paths to equal checked_paths, commit with
// the trailer `Awaywork-Unit: <id>`, and push refs/heads/awaywork/<id> without force. Finding
// that branch with the same marker and tree is success with already_applied (nothing is done);
// finding it otherwise is an Error and the branch is left as it was.
Result<PublishResult> publish(const PublishRequest& req);

// ---- one commit on an existing branch (fast_forward.cc): a pull request's follow-up ---------

struct FastForwardRequest {
  ApplyTarget target;       // target.branch: the existing branch (a pull request's head)
  std::string unit_id;      // the commit's marker trailer, `Awaywork-Unit: <id>`
  std::string base_commit;  // full id: the branch's tip when the unit started (its clone)
  std::string patch;        // the checked patch, against base_commit
  std::vector<std::string> checked_paths;
  Identity who;
  std::string message;  // the marker trailer is appended
  std::string scratch_dir;
  std::string askpass;
  std::function<void(const std::string&)> remove_scratch;  // as PublishRequest's
};

struct FastForwardResult {
  std::string branch;            // target.branch
  std::string commit;            // the new tip: one commit whose only parent is base_commit
  bool already_applied = false;  // the branch's tip was this unit's commit already
};

// One new commit on target.branch, a fast-forward of base_commit, in a scratch git dir awaywork
// owns (as publish()): the patch applied to base_commit, the changed paths equal to
// checked_paths, committed with the marker, pushed without a force refspec and only while the
// branch is still at base_commit (git's compare-and-swap, --force-with-lease=REF:BASE: the
// server's ref transaction checks the old value, so a branch that moves, or is rewound, between
// the check and the push is never written). When the branch is not at base_commit, nothing is
// pushed and the Error says that it moved, where it is and what to do. Finding the branch's tip
// already this unit's commit (marker, tree, parent base_commit) is success, already_applied.
Result<FastForwardResult> publish_fast_forward(const FastForwardRequest& req);

// ---- a remote's mirror (mirror.cc) ---------------------------------------------------------

// One bare mirror per remote repository, awaywork's own (nothing of the agent touches it), under
// the state folder. update_mirror creates it on first use, then fetches every branch and tag
// from the remote with the hardened git (credential through the askpass), under an exclusive
// flock held until the returned handle goes, so that concurrent units neither fetch into one
// mirror at once nor clone from it while it moves.
class MirrorLock {
 public:
  explicit MirrorLock(int fd = -1) : fd_(fd) {}
  MirrorLock(MirrorLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  MirrorLock& operator=(MirrorLock&& o) noexcept;
  ~MirrorLock();

 private:
  int fd_;
};

struct Mirror {
  SourceRepo repo;  // the mirror as a bare source (make_clone, resolve_commit)
  MirrorLock lock;
  bool created = false;  // false: an existing mirror was fetched (only new objects moved)
};

// remote: url (and credential) of the repository; dir: the mirror's folder (created).
Result<Mirror> update_mirror(const ApplyTarget& remote, const std::string& dir,
                             const std::string& askpass);

// A fork's pull request (issue 26): update_mirror, then fetch its head `refs/pull/N/head` (the
// base repository serves it) into the mirror's same ref, for the unit that answers a command on
// it. Only that one ref: the mirror never fetches every pull request's head.
Status fetch_pull_head(const ApplyTarget& remote, const std::string& dir,
                       const std::string& askpass, int64_t number);

// The mirror folder for a URL under state_dir: mirrors/<host>/<path>.git, with anything outside
// [A-Za-z0-9._-] in the host or path replaced (never a "..").
std::string mirror_dir_for(const std::string& state_dir, const std::string& url);

// The local source as an apply target: its git dir, on base_ref when that names a branch of it
// (else "" = its HEAD).
ApplyTarget local_target(const SourceRepo& src, const std::string& base_ref);

// The commit message line that marks a unit's commit.
std::string unit_marker(const std::string& unit_id);

// A remote apply may push to: https, http, git or file, no userinfo with a password, no
// remote helper (::), nothing that reads as an option.
Status check_remote_url(const std::string& url);

// awaywork's askpass (askpass.cc). git execs GIT_ASKPASS directly (no shell) with one argument,
// the prompt; the answer comes from the environment of the git process that awaywork started.
// The awaywork binary is that program when AWAYWORK_ASKPASS=1 is in its environment.
bool askpass_mode();
int askpass_main(int argc, char** argv);

}  // namespace aw
