// The task of a follow-up unit on a pull request (issue 26), built by awaywork as the is
// (task.h): the repository's follow-up text, one line naming the pull request and its branches,
// the counts of what was left out, the data notice, then, each cleaned and in its own fence, the
// recorded task of the unit that opened the pull request, its current diff summary (files and
// lines changed, the names quoted as data), the admitted reviews' bodies and the
// admitted review comments thread by thread, each thread under its file, line and the diff hunk
// it points at, then the admitted conversation comments since the last unit. Never shown, only
// counted: comments and reviews by people not admitted (their text never reaches the agent) and
// edited comments (an edit after a maintainer read it could swap the words they admitted).
// awaywork's own replies are neither shown nor counted.
//
//   Admission adm(...);
//   PullFollowUp f = build_pull_task(t, [&](const ForgeUser& u) { return adm.check(u); });
//   run the unit with f.prompt; reply in each of f.threads; re-request f.reviewers
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "forge/admission.h"
#include "forge/model.h"
#include "forge/pr_checks.h"
#include "forge/pr_files.h"

namespace aw {

// Used when the repository's entry has no follow_up task.
extern const char kDefaultPullTask[];

struct PullTask {
  std::string repo_task;  // "" = kDefaultPullTask
  std::string repo;       // OWNER/REPO
  ForgePull pull;
  std::string opening_task;  // the recorded task of the unit that opened the pull request, or ""
  std::vector<ForgeReview> reviews;
  std::vector<ForgeReviewComment> comments;  // the pull request's review comments, any order
  // Its conversation comments (GET .../issues/N/comments), any order: the admitted ones written
  // after `since` are quoted (a command such as "/awaywork also handle the empty case" is one).
  std::vector<ForgeComment> conversation;
  std::string self_login;  // awaywork's login on the forge
  // Only what was written after this time (ISO 8601 UTC, as GitHub writes it) asks for work: the
  // earlier comments of a thread that asks are quoted for context. "" = everything asks.
  std::string since;
  // The head commit's failing checks (`follow_ci: true`, pr_checks.h), each quoted with its
  // annotations and log tail; empty when the repository does not follow CI.
  std::vector<FailingCheck> checks;
  // The pull request's current diff summary (pr_files.h): its counts on a line of awaywork's,
  // its file names quoted. Unread (has_diff false): no line and no piece.
  bool has_diff = false;
  PullDiff diff;
};

struct PullFollowUp {
  std::string prompt;
  std::vector<int64_t> threads;        // the first comment of each thread quoted: reply there
  std::vector<std::string> reviewers;  // admitted reviewers who requested changes: re-request
  std::vector<std::string> failing;    // the failing checks quoted, by name
  int quoted = 0;    // review comments, review bodies and conversation comments in the prompt
  int left_out = 0;  // by people not admitted: counted, never shown
  int edited = 0;    // edited after they were written: counted, never shown

  // Nothing admitted asks for work (no thread, quote, failing check or request for changes): no
  // unit is started. One rule for both forges' follow-ups.
  bool asks_nothing() const {
    return threads.empty() && reviewers.empty() && quoted == 0 && failing.empty();
  }
};

using AdmitFn = std::function<Admitted(const ForgeUser&)>;

// Pure: the forge is asked nothing here but through `admit` (Admission::check in awaywork).
PullFollowUp build_pull_task(const PullTask& t, const AdmitFn& admit);

// A pull request that is not awaywork's (issue 26): only an admitted person's explicit command
// asks for work on it, and the work becomes awaywork's own draft pull request against that pull
// request's branch. Its task: awaywork's text, one line naming the pull request, its diff counts,
// the data notice, then the command comment and the diff's file names, each in its own fence. The
// pull request's own title and body are its author's, who may be no admitted person: they are
// not quoted.
struct ForeignPullTask {
  std::string repo;  // OWNER/REPO
  ForgePull pull;
  ForgeComment command;  // the admitted command comment
  PullDiff diff;
};

extern const char kDefaultForeignPullTask[];

// Pure.
std::string build_foreign_pull_task(const ForeignPullTask& t);

}  // namespace aw
