// Finding a repository entry of the config by the name a command was given: a `repos:` key, or
// the OWNER/REPO of a forge repository's `github:` (any case). Config data only: `run --repo`,
// `run --issue`, `apply --from` and watch's `repos:` find their entry the same way.
#pragma once

#include <string>

#include "base/result.h"
#include "config/config.h"

namespace aw {

// The repository entry for "NAME" (a repos: key) or "OWNER/REPO" (a repos: entry's github:).
Result<RepoConfig> find_forge_repo(const Config& cfg, const std::string& name);

}  // namespace aw
