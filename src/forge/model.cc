#include "forge/model.h"

#include "forge/json_fields.h"

namespace aw {

using nlohmann::json;

using namespace forge_field;

namespace {

Result<ForgeUser> user_at(const json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return ForgeUser{"ghost", false};  // a deleted account
  return user_from_json(*it, what + " ." + key);
}

}  // namespace

Result<ForgeUser> user_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeUser u;
  AW_TRY(u.login, str(j, "login", what, true));
  if (u.login.empty()) return fail("{}: an empty login", what);
  AW_TRY(std::string type, str(j, "type", what, false));
  u.bot = type == "Bot" || u.login.ends_with("[bot]");
  return u;
}

Result<ForgeIssue> issue_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeIssue i;
  AW_TRY(i.number, integer(j, "number", what));
  AW_CHECK(strs(
      j, what,
      {{"title", &i.title}, {"body", &i.body}, {"state", &i.state}, {"html_url", &i.html_url}}));
  AW_TRY(i.author, user_at(j, "user", what));
  i.is_pull_request = j.contains("pull_request") && !j["pull_request"].is_null();
  if (auto it = j.find("labels"); it != j.end() && it->is_array()) {
    for (const json& l : *it) {
      if (l.is_string()) i.labels.push_back(l.get<std::string>());  // GitHub allows both forms
      if (l.is_object() && l.contains("name") && l["name"].is_string())
        i.labels.push_back(l["name"].get<std::string>());
    }
  }
  return i;
}

Result<ForgeComment> comment_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeComment c;
  AW_TRY(c.id, integer(j, "id", what));
  AW_TRY(c.author, user_at(j, "user", what));
  AW_CHECK(strs(j, what,
                {{"body", &c.body},
                 {"created_at", &c.created_at},
                 {"updated_at", &c.updated_at},
                 {"html_url", &c.html_url}}));
  return c;
}

Result<std::vector<ForgeComment>> comments_from_json(const json& j, const std::string& what) {
  return list_of<ForgeComment>(j, what, comment_from_json);
}

Result<ForgeRepo> repo_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgeRepo r;
  AW_TRY(r.full_name, str(j, "full_name", what, true));
  AW_TRY(r.clone_url, str(j, "clone_url", what, true));
  AW_CHECK(strs(j, what, {{"default_branch", &r.default_branch}, {"html_url", &r.html_url}}));
  r.private_repo = flag(j, "private");
  // Optional: only the read-only forge's numeric paths (/repositories/ID/...) need it.
  if (auto id = j.find("id"); id != j.end() && id->is_number_integer() && id->get<int64_t>() > 0)
    r.id = id->get<int64_t>();
  return r;
}

Result<ForgePull> pull_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  ForgePull p;
  AW_TRY(p.number, integer(j, "number", what));
  AW_CHECK(strs(j, what, {{"html_url", &p.html_url}, {"body", &p.body}}));
  p.draft = flag(j, "draft");
  AW_TRY(p.title, str(j, "title", what, false));
  AW_TRY(p.author, user_at(j, "user", what));
  // The head's repository is null when its fork was deleted: then it is nobody's to push to.
  auto repo_of = [&](const json& end, const std::string& at) -> Result<std::string> {
    auto r = end.find("repo");
    if (r == end.end() || r->is_null()) return std::string();
    AW_CHECK(object(*r, at + " .repo"));
    return str(*r, "full_name", at + " .repo", false);
  };
  if (auto it = j.find("head"); it != j.end() && it->is_object()) {
    AW_TRY(p.head_ref, str(*it, "ref", what + " .head", false));
    AW_TRY(p.head_sha, str(*it, "sha", what + " .head", false));
    AW_TRY(p.head_repo, repo_of(*it, what + " .head"));
  }
  if (auto it = j.find("base"); it != j.end() && it->is_object()) {
    AW_TRY(p.base_ref, str(*it, "ref", what + " .base", false));
    AW_TRY(p.base_sha, str(*it, "sha", what + " .base", false));
    AW_TRY(p.base_repo, repo_of(*it, what + " .base"));
  }
  return p;
}

namespace {

// A whole number that may be absent or null (0 then): a review comment's line and in_reply_to_id.
Result<int64_t> optional_integer(const json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return int64_t{0};
  if (!it->is_number_integer())
    return fail("{}: '{}' is {}, not a whole number", what, key, it->type_name());
  return it->get<int64_t>();
}

}  // namespace

Result<std::vector<ForgeReview>> reviews_from_json(const json& j, const std::string& what) {
  return list_of<ForgeReview>(
      j, what, [](const json& x, const std::string& at) -> Result<ForgeReview> {
        ForgeReview v;
        AW_TRY(v.id, integer(x, "id", at));
        AW_TRY(v.author, user_at(x, "user", at));
        AW_TRY(v.state, str(x, "state", at, true));
        AW_CHECK(strs(
            x, at,
            {{"body", &v.body}, {"submitted_at", &v.submitted_at}, {"commit_id", &v.commit_id}}));
        return v;
      });
}

Result<std::vector<ForgeReviewComment>> review_comments_from_json(const json& j,
                                                                  const std::string& what) {
  return list_of<ForgeReviewComment>(
      j, what, [](const json& x, const std::string& at) -> Result<ForgeReviewComment> {
        ForgeReviewComment c;
        AW_TRY(c.id, integer(x, "id", at));
        AW_TRY(c.review_id, optional_integer(x, "pull_request_review_id", at));
        AW_TRY(c.in_reply_to, optional_integer(x, "in_reply_to_id", at));
        AW_TRY(c.line, optional_integer(x, "line", at));
        AW_TRY(c.author, user_at(x, "user", at));
        AW_TRY(c.body, str(x, "body", at, false));
        AW_TRY(c.path, str(x, "path", at, true));
        AW_CHECK(strs(x, at,
                      {{"diff_hunk", &c.diff_hunk},
                       {"created_at", &c.created_at},
                       {"updated_at", &c.updated_at},
                       {"html_url", &c.html_url}}));
        return c;
      });
}

Result<std::string> role_from_json(const json& j, const std::string& what) {
  AW_CHECK(object(j, what));
  AW_TRY(std::string role, str(j, "role_name", what, false));
  if (!role.empty()) return role;
  AW_TRY(std::string perm, str(j, "permission", what, true));
  return perm;
}

}  // namespace aw
