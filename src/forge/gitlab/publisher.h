// GitLab's publisher (unit/publisher.h): a unit's checked patch published to its GitLab project
// (publish.h: the branch, a draft merge request, the notes and labels), its mirror fetched with
// the forge's token. The session, and with it the token, stays here: the unit gets data only.
//
//   run_unit(cfg, req, obs, gitlab_publishers());         // opens a gitlab: project's forge
//   run_unit(cfg, req, obs, gitlab_publishers(session));  // reuses the issue source's session
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/session_publisher.h"
#include "unit/publisher.h"

namespace aw {

class GitLabPublisher : public SessionPublisher<GitLabSession> {
 public:
  using SessionPublisher::SessionPublisher;

  // The project's path (group/name), as the forge's API names it.
  std::string host_repo() const override { return s_->project; }
  Result<Applied> publish(const ApplyInput& in) override;
  std::optional<ApplyTarget> source_remote() const override;
  // The progress note brought to where `run` leaves it (progress.h).
  Status end_note(const UnitRecord& u, const std::string& pull_url, const std::string& state,
                  const std::string& reason) override;
  // The GitLab client's requests (the or merge request's reads when the source opened
  // the session, the publish, the notes) added to the record under the forge's api_url, so that
  // serve's /metrics counts a GitLab unit's calls as it does a GitHub one's (forge/usage.h).
  void record_usage(Store& store) override;
};

// The publishers of `gitlab:` projects, on their forge opened then (or on opened, when it is that
// project's session already); nullptr for any other repository.
OpenPublisher gitlab_publishers(std::shared_ptr<GitLabSession> opened = nullptr);

// Both forges' publishers: a `github:` repository's (forge/publisher.h), a `gitlab:` project's.
OpenPublisher any_forge_publishers(OpenPublisher github, std::shared_ptr<GitLabSession> gitlab);

}  // namespace aw
