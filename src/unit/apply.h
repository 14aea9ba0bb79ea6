// Publishing a checked patch: the one place that turns a unit's accepted outputs into a branch,
// used by the pipeline right after the check and by `awaywork apply ID` later.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "git/git.h"

namespace aw {

struct ApplyInput {
  RepoConfig repo;  // `publish:` names a remote target; without it the local source
  SourceRepo source;
  std::string label;  // the repository as the user named it
  std::string unit_id, prompt, base_ref, base_commit;
  std::string patch;               // the checked patch
  std::vector<std::string> paths;  // the verdict's checked paths
  std::string scratch_dir;         // inside the unit's run folder
};

// Where and how it is published, for messages: "/home/o/web/.git" or "https://...".
struct Applied {
  PublishResult result;
  std::string target;
};

Result<Applied> apply_checked(const ApplyInput& in);

}  // namespace aw
