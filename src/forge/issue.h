// A unit's task from an issue: the issue and its comments read from the forge, the comments of
// people not admitted left out (counted), the task built by task.h.
//
//   AW_TRY(IssueWork w, issue_work(*session, repo, 42, now));
//   run the unit with w.prompt; its request context is (session->owner_repo, 42)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/admission.h"
#include "forge/session.h"
#include "forge/task.h"

namespace aw {

struct IssueWork {
  ForgeIssue issue;
  std::string prompt;
  int admitted_comments = 0, left_out = 0;
  Admitted author;
};

Result<IssueWork> issue_work(ForgeSession& s, const RepoConfig& repo, int64_t number,
                             int64_t now_seconds);

// The end of issue_work on either forge (gitlab/issue.cc): t's comments are the admitted ones of
// comments (oldest first); another's are counted as left out, awaywork's own (self_login:
// progress, results) neither, as they are not the issue's text; then w's counts and prompt.
void finish_issue_work(IssueWork& w, IssueTask& t, const std::vector<ForgeComment>& comments,
                       Admission& adm, const std::string& self_login);

// "NAME#N" or "OWNER/REPO#N" split; an Error says how to write it.
struct IssueRef {
  std::string repo;
  int64_t number = 0;
};
Result<IssueRef> parse_issue_ref(const std::string& text);

}  // namespace aw
