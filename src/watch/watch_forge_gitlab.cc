// WatchForge on GitLab: the issue's notes (system notes left out) and labels, through the watch
// reader of the project's session. Every text awaywork posts there is made inert for GitLab
// first (forge/gitlab/text.h: no line a quick action, no live reference); the claim's marker,
// awaywork's own words, is kept as written so that claims_in reads it back.
#include <fmt/format.h>

#include "forge/gitlab/session.h"
#include "forge/gitlab/text.h"
#include "forge/gitlab/watch_source.h"
#include "watch/watch_forge.h"

namespace aw {

using nlohmann::json;

namespace {

// The text before the claim marker made inert; the marker line (with_marker's last) kept.
std::string inert_note(const std::string& body) {
  size_t at = body.rfind("\n<!-- awaywork:");
  if (at == std::string::npos) return gitlab_inert(body);
  return gitlab_inert(body.substr(0, at)) + body.substr(at);
}

class GitLabWatchForge final : public WatchForge {
 public:
  GitLabWatchForge(GitLabSession& s, GitLabWatchReader& rd) : s_(s), rd_(rd) {}

  const std::string& self_login() const override { return s_.self.user.login; }
  RoleLookup roles() override { return rd_.roles(); }
  const char* change_name() const override { return "merge request"; }

  Result<json> comments(int64_t issue) override { return rd_.comments(issue); }

  Status post_on_change(int64_t number, const std::string& body) override {
    return s_.gl
        .post(fmt::format("{}/merge_requests/{}/notes", s_.project_target(), number),
              json{{"body", inert_note(body)}})
        .map([](json) {});
  }

  Result<int64_t> post_comment(int64_t issue, const std::string& body) override {
    return rd_.post_note(issue, inert_note(body));
  }
  Status edit_comment(int64_t issue, int64_t comment_id, const std::string& body) override {
    return rd_.edit_note(issue, comment_id, inert_note(body));
  }
  Status delete_comment(int64_t issue, int64_t comment_id) override {
    return rd_.delete_note(issue, comment_id);
  }
  Status add_labels(int64_t issue, const std::vector<std::string>& labels) override {
    if (labels.empty()) return {};
    return rd_.change_labels(issue, labels, {});
  }
  Status remove_label(int64_t issue, const std::string& label) override {
    return rd_.change_labels(issue, {}, {label});
  }

 private:
  GitLabSession& s_;
  GitLabWatchReader& rd_;
};

}  // namespace

std::unique_ptr<WatchForge> gitlab_watch_forge(GitLabSession& s, GitLabWatchReader& reader) {
  return std::make_unique<GitLabWatchForge>(s, reader);
}

}  // namespace aw
