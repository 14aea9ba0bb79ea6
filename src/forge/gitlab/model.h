// What awaywork reads from GitLab's JSON (REST v4), into the forge's shared types (forge/model.h)
// so the task builder and the admission rules serve both forges. Parsed tolerantly: a missing
// optional field takes its default, a missing or mistyped needed one is an Error naming it and the
// endpoint. Never throws.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/model.h"

namespace aw {

// A GitLab user: `username` as ForgeUser::login; a bot when GitLab says so (`bot: true`, only
// in /user and /users/:id) or by the names GitLab gives the users of project and group access
// tokens (project_ID_bot_..., group_ID_bot_...). id: GitLab's numeric id (the members API's key).
struct GitLabUser {
  ForgeUser user;
  int64_t id = 0;
};
Result<GitLabUser> gitlab_user_from_json(const nlohmann::json& j, const std::string& what);

// An issue: iid as the number, description as the body, web_url as the address.
Result<ForgeIssue> gitlab_issue_from_json(const nlohmann::json& j, const std::string& what);

// A note; `system` notes (GitLab's own "added ~bug label", "mentioned in !3") are marked so a
// task leaves them out.
struct GitLabNote {
  ForgeComment comment;
  int64_t author_id = 0;  // the members API's key
  bool system = false;
};
Result<std::vector<GitLabNote>> gitlab_notes_from_json(const nlohmann::json& j,
                                                       const std::string& what);

// A project: path_with_namespace, http_url_to_repo, default_branch, web_url, visibility.
Result<ForgeRepo> gitlab_project_from_json(const nlohmann::json& j, const std::string& what);

// A merge request as the forge's pull (iid, web_url, source_branch, sha, description, draft;
// title, target_branch as base_ref, author). head_repo and base_repo hold the source and target
// projects' ids ("#12"): a merge request from a fork has two.
Result<ForgePull> gitlab_mr_from_json(const nlohmann::json& j, const std::string& what);

// A merge request's discussion (GET .../merge_requests/:iid/discussions): its id (what a reply
// is posted to), whether it is a lone note rather than a thread, and its notes oldest first. A
// diff note names its file and line (position.new_path and new_line; the old side's for a
// removed line); a thread's resolvable and resolved are its first note's.
struct GitLabDiscussionNote {
  GitLabNote note;
  std::string type;  // "DiffNote", "DiscussionNote" or "" (a lone note)
  bool resolvable = false, resolved = false;
  std::string path;
  int64_t line = 0;  // 0: none (a general note, or an image's)
};
struct GitLabDiscussion {
  std::string id;
  bool individual = false;
  std::vector<GitLabDiscussionNote> notes;
};
Result<std::vector<GitLabDiscussion>> gitlab_discussions_from_json(const nlohmann::json& j,
                                                                   const std::string& what);

// A merge request's reviewer (GET .../merge_requests/:iid/reviewers, GitLab 15.3 and later):
// the user and the state of their review: unreviewed, review_started, reviewed,
// requested_changes (GitLab 16.9 and later: GitHub's review requesting changes), approved or
// unapproved. GitLab gives no time for the state's change, only when the reviewer was added.
struct GitLabReviewer {
  GitLabUser user;
  std::string state;
  std::string created_at;
};
Result<std::vector<GitLabReviewer>> gitlab_reviewers_from_json(const nlohmann::json& j,
                                                               const std::string& what);

}  // namespace aw
