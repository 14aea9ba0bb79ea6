// A merge request as a source (issue 29 item 7): `run --pr NAME!N` on a `gitlab:` project becomes
// a follow-up unit's request, with the rules of GitHub's pull request follow-up (forge/pr_source.h,
// shared where they are the same rule): only awaywork's own merge request from a branch of the
// project itself (followable); the task built by forge/pr_task.h from the opening unit's recorded
// task (forge/follow_up_history.h) and the admitted notes since the last unit: each unresolved
// diff discussion as a review thread under its file and line, every other note (general notes,
// threads without a position) as a conversation comment; system notes, awaywork's own notes and
// resolved discussions left out; people below the admitted access level counted, never shown.
// The clone is the merge request's head commit, the agent's instructions its target branch's.
//
//   AW_TRY(GitLabMrRun r, gitlab_mr_run(cfg, "app", 3));
//   run_unit(cfg, r.request, obs, gitlab_mr_publishers(r));   // mr_publisher.h
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/gitlab/model.h"
#include "forge/gitlab/session.h"
#include "forge/issue.h"
#include "forge/pr_task.h"
#include "unit/pipeline.h"

namespace aw {

// Used when the repository's entry has no follow-up text of its own.
extern const char kDefaultGitlabMrTask[];

struct GitLabMrRun {
  RunRequest request;
  std::shared_ptr<GitLabSession> session;
  ForgePull mr;
  PullFollowUp follow;  // follow.threads: each quoted discussion's first note id
  std::map<int64_t, std::string> discussion_of;  // that note id -> the discussion's id
};

// "NAME!N" (GitLab's own reference to a merge request) or "NAME#N"; NAME a repos: name or the
// project's path.
Result<IssueRef> parse_mr_ref(const std::string& text);

// The discussions as forge/pr_task.h reads a pull request's: pure.
struct MrNotes {
  std::vector<ForgeReviewComment> threads;  // diff notes: in_reply_to = the first note's id
  std::vector<ForgeComment> conversation;   // every other note that is not the system's
  std::map<int64_t, std::string> discussion_of;
  std::map<std::string, int64_t> ids;  // login -> GitLab user id (the members API's key)
  int resolved = 0;                    // resolved diff discussions: done, left out
};
MrNotes mr_notes(const std::vector<GitLabDiscussion>& discussions);

// GitHub's rule (forge/pr_source.h followable) on GitLab's names: awaywork's own merge request
// (opened by the session's user), from a branch of the project itself (a merge request whose
// source project is its target project).
Status gitlab_followable(const ForgePull& mr, const GitLabSession& s);

// The merge request's reviewers and the state of each one's review (GET
// .../merge_requests/:iid/reviewers). A GitLab before 15.3 has no such list (its 404): none.
Result<std::vector<GitLabReviewer>> gitlab_mr_reviewers(GitLabSession& s, int64_t iid);

// GitLab's review requesting changes (a reviewer in state requested_changes, GitLab 16.9 and
// later) as forge/pr_task.h reads GitHub's: a CHANGES_REQUESTED review without a body (its words
// are the reviewer's notes, read as discussions), dated `now` (ISO 8601 UTC): GitLab gives no
// time for a state's change, and a follow-up's re-request ends the state, so a state still there
// is the reviewer's word since the last one. Pure.
std::vector<ForgeReview> gitlab_change_requests(const std::vector<GitLabReviewer>& reviewers,
                                                const std::string& now);

// An Error (not a GitLab project, not awaywork's merge request, a fork's, nothing admitted asks
// for work) means no unit is made.
Result<GitLabMrRun> gitlab_mr_run(const Config& cfg, const std::string& repo, int64_t iid);

}  // namespace aw
