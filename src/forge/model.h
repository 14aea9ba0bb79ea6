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
};

struct ForgePull {
  int64_t number = 0;
  std::string html_url, head_ref, head_sha, body;
  bool draft = false;
};

// `what` names the endpoint for messages ("GET /repos/o/r/issues/5").
Result<ForgeUser> user_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgeIssue> issue_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgeComment> comment_from_json(const nlohmann::json& j, const std::string& what);
Result<std::vector<ForgeComment>> comments_from_json(const nlohmann::json& j,
                                                     const std::string& what);
Result<ForgeRepo> repo_from_json(const nlohmann::json& j, const std::string& what);
Result<ForgePull> pull_from_json(const nlohmann::json& j, const std::string& what);
// The collaborator permission endpoint's role_name (falling back to permission).
Result<std::string> role_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace aw
