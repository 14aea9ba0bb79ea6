// Where a unit's checked patch goes: the apply step through one interface, so that the pipeline
// knows no host. Git's own publisher (apply.h) makes the branch in the local source or pushes it
// to the remote of `publish:` or `url:`; a room above the unit implements the others (the forge's:
// the branch, a draft pull request, the checked comments and labels) and hands them in through an
// OpenPublisher. The publisher holds whatever credential it publishes with; the unit gets from it
// only data (where the source is fetched from, the values the record is redacted of), so no type
// that reaches a phase can hold it (docs/layout.md, "Credential holders").
//
//   OpenPublisher open = ...;                         // the caller's rooms, wired in
//   AW_TRY(auto pub, open(cfg, repo));                // nullptr: git's own serves the repository
//   AW_TRY(Applied a, apply_checked(in, pub.get()));  // apply.h
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "check/requests.h"
#include "config/config.h"
#include "git/git.h"
#include "record/record.h"

namespace aw {

class Store;

struct ApplyInput {
  RepoConfig repo;  // `publish:` names a remote target; without it the local source
  SourceRepo source;
  std::string label;  // the repository as the user named it
  std::string unit_id, prompt, base_ref, base_commit;
  std::string patch;               // the checked patch
  std::vector<std::string> paths;  // the verdict's checked paths
  std::string scratch_dir;         // inside the unit's run folder
  // What a host's publisher adds to the branch: the unit's record (for the footer and its issue),
  // the checked requests, the mirror to borrow objects from ("" when the publisher is git's own).
  const UnitRecord* record = nullptr;
  std::vector<Request> requests;
  std::string mirror_dir;
};

// Where and how it is published, for messages: "/home/o/web/.git" or "https://...".
struct Applied {
  PublishResult result;
  std::string target;
  std::string pull_url, compare_url;         // a forge repository's pull request (or link)
  std::vector<std::string> posted, already;  // items posted now / found by their marker
};

class Publisher {
 public:
  virtual ~Publisher() = default;

  // Publishes a checked patch: a new branch (never forced), and what the host adds to it.
  virtual Result<Applied> publish(const ApplyInput& in) = 0;

  // Where the repository's source is fetched from: its mirror's remote, with the value the
  // askpass answers (the credential, for that fetch alone; nothing keeps the returned target).
  // nullopt: the repository's own path or `url:`.
  virtual std::optional<ApplyTarget> source_remote() const { return std::nullopt; }
  // The repository as its host names it (OWNER/REPO): what a request's `repo` must name, and the
  // record's forge_repo. "" = the label.
  virtual std::string host_repo() const { return ""; }
  // The host's number for that repository (GitHub's repository id, GitLab's project id), as the
  // publisher's session read it when it opened; 0 = not known. The read-only forge for the agent
  // (unit/agent_forge.h) also lets the phases read the repository by it.
  virtual int64_t host_repo_id() const { return 0; }
  // The base when neither the request nor the repository's `base:` names one; "" = the source's
  // HEAD.
  virtual std::string default_branch() const { return ""; }
  // Values every recorded byte of the unit is redacted of, and that a patch must not hold: the
  // publisher's own credential.
  virtual std::vector<std::string> secrets() const { return {}; }

  // After a later apply (`awaywork apply ID`, `apply --from DIR`): the note the publisher keeps on
  // the unit's item (the progress comment) brought to where `run` leaves it: the pull
  // request, else the state and the reason. An Error is the caller's note, never the apply's.
  virtual Status end_note(const UnitRecord& u, const std::string& pull_url,
                          const std::string& state, const std::string& reason) {
    (void)u, (void)pull_url, (void)state, (void)reason;
    return {};
  }
  // Once the publisher is done with (a unit's end, an apply's): what it spent of its host's API
  // added to the record (for /metrics). A failure to save is nobody's failure.
  virtual void record_usage(Store& store) { (void)store; }
};

// Opens the publisher of a repository the caller's rooms serve (the forge's, for a `github:`
// repository); nullptr when none of them serves it, and git's own does. An Error (a refused
// token, an unreachable host) means no unit is made.
using OpenPublisher =
    std::function<Result<std::unique_ptr<Publisher>>(const Config& cfg, const RepoConfig& repo)>;

// Saves the publisher's usage when the scope ends (every return of a long function).
struct UsageOnExit {
  Store& store;
  Publisher* publisher;
  ~UsageOnExit() {
    if (publisher) publisher->record_usage(store);
  }
};

}  // namespace aw
