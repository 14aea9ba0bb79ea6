// A unit's task from a GitLab issue: the issue and its notes read from the project, system notes
// (GitLab's own "added ~bug label") and the notes of people not admitted left out (the latter
// counted), the task built by forge/task.h as for GitHub: the same fences, the same cleaning.
// Admission is forge/admission.h's, with GitLab's access levels (GET
// /projects/:id/members/all/:user_id, inherited from groups) read as trust.roles' names: Owner
// as admin, Maintainer as maintain, Developer as write, Reporter as triage, Guest as read, so the
// default [admin, maintain, write] admits Developer and up.
//
//   AW_TRY(IssueWork w, gitlab_issue_work(*session, repo, 42, now));
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "forge/admission.h"
#include "forge/gitlab/session.h"
#include "forge/issue.h"

namespace aw {

// Used when the repository's entry has no task:.
extern const char kDefaultGitlabIssueTask[];

// GitLab's access level as trust.roles names it ("none" below Guest).
std::string gitlab_role_of_level(int64_t access_level);

// The role lookup for a user by id: the members API (404 = "none").
Result<std::string> gitlab_role(GitLabSession& s, int64_t user_id);

// Admission's lookup by login (forge/admission.h) over the members API, which is keyed by id:
// `ids` maps the logins the read text carries to their ids; any other login is "none".
RoleLookup gitlab_roles(GitLabSession& s, std::map<std::string, int64_t> ids);

Result<IssueWork> gitlab_issue_work(GitLabSession& s, const RepoConfig& repo, int64_t iid,
                                    int64_t now_seconds);

}  // namespace aw
