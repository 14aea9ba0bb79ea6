// A pull request as a source (issue 26): `run --pr NAME#N` becomes a follow-up unit's request.
// awaywork's own pull request from a branch of the repository itself is followed up. On a pull
// request that is not awaywork's only an admitted person's explicit command comment (`/awaywork
// ...`, the repository's watch: `command:`) asks for work, and awaywork never pushes to its
// branch: the unit becomes awaywork's own draft pull request against that branch (the request's
// base is the pull request's head branch; publish.h kForeignPullNote), or, for a fork's pull
// request, a branch of the base repository on its head (refs/pull/N/head, fetched into the
// mirror for that unit alone) offered by a compare link (publish.h kForkPullNote). The pull
// request, its reviews and review comments are read, the task built by pr_task.h (the opening
// unit's recorded task from this machine's record, when there), and the request made: the clone
// is the pull request's head commit, the agent's instructions its base branch's
// (RunRequest::instructions_from).
//
//   AW_TRY(PullRun r, pull_request_run(cfg, "web", 9));
//   run_unit(cfg, r.request, obs, pull_publishers(r));   // pr_publisher.h
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/pr_task.h"
#include "forge/session.h"
#include "unit/pipeline.h"

namespace aw {

// kFollowUpNote and is_follow_up (a follow-up unit's record note) live in record/record.h, where
// serve reads them too.

struct PullRun {
  RunRequest request;
  std::shared_ptr<ForgeSession> session;
  ForgePull pull;
  PullFollowUp follow;  // the threads to reply in, the reviewers to re-request
  // Not awaywork's pull request: the admitted command asked for a draft pull request against it
  // (follow is empty then; the publish is the forge's, forge_publishers).
  bool foreign = false;
  // foreign, and its head is in a fork: the unit's branch goes to the base repository on top of
  // refs/pull/N/head, and the compare link is commented (publish.h kForkPullNote).
  bool fork = false;
  ForgeComment command;
};

// repo: as the command was given it (a repos: name or OWNER/REPO). An Error (another's pull
// request without an admitted command, nothing admitted asks for work, the newest
// command already answered by a unit of this machine) means no unit is made.
Result<PullRun> pull_request_run(const Config& cfg, const std::string& repo, int64_t number);

// The record notes of what a follow-up's publish answers besides its commit (pr_publisher.h), so
// that `awaywork apply ID` answers the same: "review threads to reply in: 11, 12" and "review
// to request again from: maint, carol". Ids and logins only: awaywork's words.
inline constexpr char kFollowUpThreadsNote[] = "review threads to reply in: ";
inline constexpr char kFollowUpReviewersNote[] = "review to request again from: ";

// The record note naming the failing checks a follow-up's task quoted (`follow_ci: true`):
// "failing checks in the task: build, ci/lint". The names are the workflow's text: a note, data.
inline constexpr char kFollowUpChecksNote[] = "failing checks in the task: ";

// The newest comment of `comments` that is the command (at its first character, then its end or
// a blank), by an admitted person, never edited and not awaywork's own; nullopt when none. Pure.
std::optional<ForgeComment> admitted_command(const std::vector<ForgeComment>& comments,
                                             const std::string& command,
                                             const std::string& self_login, const AdmitFn& admit);

// The checks on a pull request before a follow-up, pure: an Error names why it is not followed.
Status followable(const ForgePull& pull, const std::string& owner_repo,
                  const std::string& self_login);

}  // namespace aw
