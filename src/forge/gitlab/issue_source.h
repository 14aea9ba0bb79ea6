// GitLab as a source: `run --issue NAME#N` on a `gitlab:` project becomes a unit request, as
// forge/issue_source.h does for GitHub: the project found, its forge opened, the issue and its
// admitted notes read and the task built (issue.h); the session goes on to the unit's publisher.
//
//   if (gitlab_repo(cfg, "app")) { AW_TRY(GitLabIssueRun r, gitlab_issue_request(cfg, "app", 7)); }
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "forge/gitlab/session.h"
#include "unit/pipeline.h"

namespace aw {

struct GitLabIssueRun {
  RunRequest request;
  std::shared_ptr<GitLabSession> session;
};

// True when repo (a repos: name, or a forge path) names a `gitlab:` project: the forge's kind
// picks the implementation.
bool gitlab_repo(const Config& cfg, const std::string& repo);

// An Error (not a GitLab project, a refused token, a missing issue, an author not admitted after
// stop_after) means no unit is made.
Result<GitLabIssueRun> gitlab_issue_request(const Config& cfg, const std::string& repo,
                                            int64_t number);

}  // namespace aw
