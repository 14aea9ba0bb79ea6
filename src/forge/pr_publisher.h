// The publisher of a pull request's follow-up (issue 26): the unit's checked patch becomes one
// new commit on the pull request's own branch, a fast-forward of the commit the unit started from
// (git.h publish_fast_forward: nothing is pushed when the branch moved), then a marked reply in
// each review thread the task quoted, and review requested again from the admitted reviewers who
// asked for changes. Each reply carries its marker (`reply-<thread>`), so a replay posts none
// twice. Everything else (the source's fetch, the progress comment, the usage) is the forge
// publisher's.
//
//   AW_TRY(PullRun r, pull_request_run(cfg, "web", 9));
//   run_unit(cfg, r.request, obs, pull_publishers(r));
#pragma once

#include <memory>

#include "forge/pr_source.h"
#include "forge/publisher.h"

namespace aw {

class PullPublisher : public ForgePublisher {
 public:
  PullPublisher(std::shared_ptr<ForgeSession> s, ForgePull pull, PullFollowUp follow)
      : ForgePublisher(s), s_(std::move(s)), pull_(std::move(pull)), follow_(std::move(follow)) {}

  Result<Applied> publish(const ApplyInput& in) override;

 private:
  std::shared_ptr<ForgeSession> s_;
  ForgePull pull_;
  PullFollowUp follow_;
};

// What `awaywork apply ID` of a follow-up unit publishes through: its pull request read again
// (still awaywork's, from the repository itself, on the branch the record names), the threads and
// reviewers from the record's notes (pr_source.h). The publish is idempotent: the branch's tip
// already this unit's commit is success, each reply found by its marker is not posted again, and
// a reviewer still requested is not requested again. An Error when the record names no pull
// request or it cannot be followed. A gitlab: repository's unit follows up a merge request:
// forge/gitlab/mr_publisher.h's gitlab_follow_up_publishers, on the same rules.
Result<OpenPublisher> follow_up_publishers(const Config& cfg, const UnitRecord& u);

// The pull request's repository publishes through a PullPublisher; any other, and a command on
// someone else's pull request (run.foreign), as forge_publishers.
OpenPublisher pull_publishers(const PullRun& run);

}  // namespace aw
