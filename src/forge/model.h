// What awaywork reads from GitHub's JSON, parsed tolerantly: a missing optional field takes its
// default, a missing or mistyped field awaywork needs is an Error naming it and the endpoint.
// Never throws, whatever the bytes (fuzz/fuzz_forge_json.cc).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

struct ForgeUser {
  std::string login;
  bool bot = false;  // type "Bot" (or a login ending in [bot])
};

struct ForgeIssue {
  int64_t number = 0;
  std::string title, body, state, html_url;
  ForgeUser author;
  std::vector<std::string> labels;
  bool is_pull_request = false;
};

struct ForgeComment {
  int64_t id = 0;
  ForgeUser author;
  std::string body, created_at, updated_at, html_url;
};

struct ForgeRepo {
  std::string full_name, clone_url, default_branch, html_url;
  bool private_repo = false;
  // The forge's number for it (GitHub's repository id, GitLab's project id); 0 when the answer
  // had none. The read-only forge for the agent adds the numeric API paths with it.
  int64_t id = 0;
};

struct ForgePull {
  int64_t number = 0;
  std::string html_url, head_ref, head_sha, body;
  bool draft = false;
  // For a follow-up (issue 26): whose pull request, which branch it targets, and where its head
  // lives (a fork's full_name differs from base_repo's; awaywork never pushes there).
  std::string title, base_ref, base_sha, head_repo, base_repo;
  ForgeUser author;
};

// A pull request review: state APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING.
struct ForgeReview {
  int64_t id = 0;
  ForgeUser author;
  std::string state, body, submitted_at, commit_id;
};

// A review comment, anchored to `line` of `path` on the head side (0: GitHub no longer places it,
// the line is outdated); `in_reply_to` names its thread's first comment (0: it is the first).
struct ForgeReviewComment {
  int64_t id = 0, review_id = 0, in_reply_to = 0, line = 0;
  ForgeUser author;
  std::string body, path, diff_hunk, created_at, updated_at, html_url;
};

// `what` names the endpoint for messages ("GET /repos/o/r/issues/5").
Result<ForgeUser> user_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgeIssue> issue_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgeComment> comment_from_json(const nlohmann::json& j, const std::string& what);
Result<std::vector<ForgeComment>> comments_from_json(const nlohmann::json& j,
                                                     const std::string& what);
Result<ForgeRepo> repo_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgePull> pull_from_json(const nlohmann::json& j, const std::string& what);
Result<std::vector<ForgeReview>> reviews_from_json(const nlohmann::json& j,
                                                   const std::string& what);
Result<std::vector<ForgeReviewComment>> review_comments_from_json(const nlohmann::json& j,
                                                                  const std::string& what);
// The collaborator permission endpoint's role_name (falling back to permission).
Result<std::string> role_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace aw
