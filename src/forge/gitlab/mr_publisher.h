// The publisher of a merge request's follow-up (issue 29 item 7), as forge/pr_publisher.h is on
// GitHub: the unit's checked patch becomes one new commit on the merge request's source branch, a
// fast-forward of the commit the unit started from (git.h publish_fast_forward, pushed as
// `oauth2` through the askpass: nothing is pushed when the branch moved, and the unit says so),
// then a marked reply in each discussion the task quoted (POST .../discussions/:id/notes), made
// inert for GitLab. Each reply carries its marker (`reply-<first note id>`), so a replay posts
// none twice. The progress note is on the merge request. Everything else (the mirror's fetch, the
// token's redaction, the API usage saved for /metrics) is GitLabPublisher's.
//
//   AW_TRY(GitLabMrRun r, gitlab_mr_run(cfg, "app", 3));
//   run_unit(cfg, r.request, obs, gitlab_mr_publishers(r));
#pragma once

#include <memory>

#include "forge/gitlab/mr_source.h"
#include "forge/gitlab/publisher.h"

namespace aw {

class GitLabMrPublisher : public GitLabPublisher {
 public:
  GitLabMrPublisher(std::shared_ptr<GitLabSession> s, ForgePull mr, PullFollowUp follow,
                    std::map<int64_t, std::string> discussion_of)
      : GitLabPublisher(s),
        s_(std::move(s)),
        mr_(std::move(mr)),
        follow_(std::move(follow)),
        discussion_of_(std::move(discussion_of)) {}

  Result<Applied> publish(const ApplyInput& in) override;
  Status end_note(const UnitRecord& u, const std::string& pull_url, const std::string& state,
                  const std::string& reason) override;

 private:
  // After the push and the replies: each reviewer the task named whose review still requests
  // changes asked for a review again ("review-request" posted, or already).
  Status request_review_again(Applied& a);

  std::shared_ptr<GitLabSession> s_;
  ForgePull mr_;
  PullFollowUp follow_;
  std::map<int64_t, std::string> discussion_of_;
};

// The merge request's project publishes through a GitLabMrPublisher; any other as
// any_forge_publishers.
OpenPublisher gitlab_mr_publishers(const GitLabMrRun& run);

// `apply ID` of a merge request's follow-up, and `apply --from DIR` of its artifact (GitHub's
// follow_up_publishers, forge/pr_publisher.h, hands a gitlab: repository's unit here): the merge
// request `iid` read again, which must still be awaywork's, from the project itself, on `branch`
// (where the unit was made), its discussions read again for where each reply of `follow.threads`
// goes; the publish is then the run's (one fast-forward commit or nothing, the replies and the
// re-request found by marker and state, so a second apply posts nothing).
Result<OpenPublisher> gitlab_follow_up_publishers(const Config& cfg, const UnitRecord& u,
                                                  const RepoConfig& r, int64_t iid,
                                                  const std::string& branch, PullFollowUp follow);

}  // namespace aw
