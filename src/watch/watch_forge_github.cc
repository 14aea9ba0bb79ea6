// WatchForge on GitHub: the issue comments and labels API of the repository's session.
#include <fmt/format.h>

#include "forge/session.h"
#include "watch/watch_forge.h"

namespace aw {

using nlohmann::json;

namespace {

// A label in a URL path: GitHub's labels may hold ':' and blanks (awaywork:running).
std::string escape_path(const std::string& label) {
  std::string out;
  for (unsigned char c : label) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

class GitHubWatchForge final : public WatchForge {
 public:
  explicit GitHubWatchForge(ForgeSession& s) : s_(s) {}

  const std::string& self_login() const override { return s_.self_login; }
  RoleLookup roles() override { return github_roles(s_.gh, s_.owner_repo); }
  const char* change_name() const override { return "pull request"; }
  // A pull request's conversation is its issue's comments: the same calls serve both.
  std::unique_ptr<WatchForge> changes() override { return std::make_unique<GitHubWatchForge>(s_); }

  Result<json> comments(int64_t issue) override {
    return s_.gh.get_all(
        fmt::format("/repos/{}/issues/{}/comments?per_page=100", s_.owner_repo, issue));
  }

  // A pull request's conversation is its issue's comments (one number for both).
  Status post_on_change(int64_t number, const std::string& body) override {
    return post_comment(number, body).map([](int64_t) {});
  }

  Result<int64_t> post_comment(int64_t issue, const std::string& body) override {
    AW_TRY(json made, s_.gh.post(fmt::format("/repos/{}/issues/{}/comments", s_.owner_repo, issue),
                                 json{{"body", body}}));
    AW_TRY(ForgeComment mine, comment_from_json(made, "POST comments"));
    return mine.id;
  }

  // GitHub addresses a comment by its id alone.
  Status edit_comment(int64_t, int64_t comment_id, const std::string& body) override {
    return s_.gh
        .patch(fmt::format("/repos/{}/issues/comments/{}", s_.owner_repo, comment_id),
               json{{"body", body}})
        .map([](json) {});
  }

  Status delete_comment(int64_t, int64_t comment_id) override {
    std::string target = fmt::format("/repos/{}/issues/comments/{}", s_.owner_repo, comment_id);
    AW_TRY(ApiReply r, s_.gh.call("DELETE", target));
    if (r.status == 200 || r.status == 204 || r.status == 404) return {};
    return fail("{}", s_.gh.describe("DELETE", target, r));
  }

  Status add_labels(int64_t issue, const std::vector<std::string>& labels) override {
    if (labels.empty()) return {};
    return s_.gh
        .post(fmt::format("/repos/{}/issues/{}/labels", s_.owner_repo, issue),
              json{{"labels", labels}})
        .map([](json) {});
  }

  Status remove_label(int64_t issue, const std::string& label) override {
    std::string target =
        fmt::format("/repos/{}/issues/{}/labels/{}", s_.owner_repo, issue, escape_path(label));
    AW_TRY(ApiReply r, s_.gh.call("DELETE", target));
    if (r.status == 200 || r.status == 204 || r.status == 404) return {};
    return fail("{}", s_.gh.describe("DELETE", target, r));
  }

 private:
  ForgeSession& s_;
};

}  // namespace

std::unique_ptr<WatchForge> github_watch_forge(ForgeSession& s) {
  return std::make_unique<GitHubWatchForge>(s);
}

}  // namespace aw
