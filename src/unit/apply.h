// Publishing a checked patch: the one place that turns a unit's accepted outputs into a branch,
// used by the pipeline right after the check and by `awaywork apply ID` later.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "check/requests.h"
#include "config/config.h"
#include "git/git.h"
#include "record/record.h"

namespace aw {

struct ForgeSession;

struct ApplyInput {
  RepoConfig repo;  // `publish:` names a remote target; without it the local source
  SourceRepo source;
  std::string label;  // the repository as the user named it
  std::string unit_id, prompt, base_ref, base_commit;
  std::string patch;               // the checked patch
  std::vector<std::string> paths;  // the verdict's checked paths
  std::string scratch_dir;         // inside the unit's run folder
  // A forge repository (repo.forge.github) publishes through forge/publish.h: the session, the
  // unit's record (for the footer and its issue), the checked requests, the mirror to borrow.
  ForgeSession* forge = nullptr;
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

Result<Applied> apply_checked(const ApplyInput& in);

// What an apply did, into the record: branch, commit, the pull request, what was posted.
void note_applied(const Applied& a, UnitRecord& u);

// A unit from an issue applied later (`awaywork apply ID`): its progress comment brought to its
// final state as `run` leaves it at its end: the pull request, else the state and the reason,
// redacted of the forge token. Found by its marker; left alone when it already says so.
Status end_progress(ForgeSession& s, const UnitRecord& u, const std::string& pull_url,
                    const std::string& state, const std::string& reason);

// The checked requests kept in runs/<id>/requests.json (for `awaywork apply ID`).
Result<std::vector<Request>> load_checked_requests(const std::string& file);

}  // namespace aw
