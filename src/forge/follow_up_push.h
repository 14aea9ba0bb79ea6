// The push of a follow-up's checked patch onto the open pull (merge) request's own branch, as
// GitHub's and GitLab's follow-up publishers (pr_publisher.cc, gitlab/mr_publisher.cc) both do it:
// one new commit, a fast-forward of the commit the unit started from (git.h publish_fast_forward:
// nothing is pushed when the branch moved), borrowing the mirror's objects.
//
//   ApplyTarget head = forge_git_target(s.forge, s.repo.clone_url, s.token);
//   head.branch = pull.head_ref;
//   AW_TRY(Applied a,
//          push_follow_up(in, std::move(head), {"o/r", pull.html_url}, "pull request o/r#9"));
#pragma once

#include <string>

#include "base/result.h"
#include "git/git.h"
#include "unit/publisher.h"

namespace aw {

// Where the follow-up lands, for Applied: the repository (or project) and the request's page.
struct FollowUpPlace {
  std::string target, url;
};

// Applied with its result (the branch, the new commit, whether it was there already), target and
// pull_url set; where: the request, as Errors name it.
Result<Applied> push_follow_up(const ApplyInput& in, ApplyTarget head, FollowUpPlace place,
                               const std::string& where);

}  // namespace aw
