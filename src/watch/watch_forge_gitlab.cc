// WatchForge on GitLab: the issue's notes (system notes left out) and labels, through the watch
// reader of the project's session. Every text awaywork posts there is made inert for GitLab
// first (forge/gitlab/text.h: no line a quick action, no live reference); the claim's marker,
// awaywork's own words, is kept as written so that claims_in reads it back.
#include <fmt/format.h>

#include "forge/gitlab/model.h"
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

// The merge requests' side (WatchForge::changes): a merge request's notes, in GitHub's comment
// shape, for follow-up claims. Labels are not used there.
class GitLabChangeForge final : public WatchForge {
 public:
  GitLabChangeForge(GitLabSession& s, GitLabWatchReader& rd) : s_(s), rd_(rd) {}

  const std::string& self_login() const override { return s_.self.user.login; }
  RoleLookup roles() override { return rd_.roles(); }
  const char* change_name() const override { return "merge request"; }
  std::unique_ptr<WatchForge> changes() override {
    return std::make_unique<GitLabChangeForge>(s_, rd_);
  }

  Result<json> comments(int64_t mr) override {
    std::string base = notes(mr);
    AW_TRY(json all, s_.gl.get_all(base + "?sort=asc&order_by=created_at&per_page=100"));
    AW_TRY(auto got, gitlab_notes_from_json(all, "GET " + base));
    json out = json::array();
    for (const GitLabNote& n : got) {
      if (n.system) continue;  // GitLab's record of a change: nobody's words, never a claim
      out.push_back({{"id", n.comment.id},
                     {"body", n.comment.body},
                     {"user",
                      {{"login", n.comment.author.login},
                       {"type", n.comment.author.bot ? "Bot" : "User"}}},
                     {"created_at", n.comment.created_at},
                     {"updated_at", n.comment.updated_at.empty() ? n.comment.created_at
                                                                 : n.comment.updated_at}});
    }
    return out;
  }
  Status post_on_change(int64_t number, const std::string& body) override {
    return post_comment(number, body).map([](int64_t) {});
  }
  Result<int64_t> post_comment(int64_t mr, const std::string& body) override {
    std::string target = notes(mr);
    AW_TRY(json j, s_.gl.post(target, {{"body", inert_note(body)}}));
    auto id = j.is_object() ? j.find("id") : j.end();
    if (!j.is_object() || id == j.end() || !id->is_number_integer())
      return fail("GitLab POST {}: the answer has no whole number 'id'", target);
    return id->get<int64_t>();
  }
  Status edit_comment(int64_t mr, int64_t note_id, const std::string& body) override {
    return s_.gl.put(fmt::format("{}/{}", notes(mr), note_id), {{"body", inert_note(body)}})
        .map([](json) {});
  }
  Status delete_comment(int64_t mr, int64_t note_id) override {
    std::string target = fmt::format("{}/{}", notes(mr), note_id);
    AW_TRY(ApiReply r, s_.gl.call("DELETE", target));
    if (r.status == 200 || r.status == 204 || r.status == 404) return {};
    return fail("{}", s_.gl.describe("DELETE", target, r));
  }
  Status add_labels(int64_t, const std::vector<std::string>& labels) override {
    if (labels.empty()) return {};
    return fail("awaywork puts no labels on a merge request");
  }
  Status remove_label(int64_t, const std::string&) override { return {}; }

 private:
  std::string notes(int64_t mr) const {
    return fmt::format("{}/merge_requests/{}/notes", s_.project_target(), mr);
  }
  GitLabSession& s_;
  GitLabWatchReader& rd_;
};

class GitLabWatchForge final : public WatchForge {
 public:
  GitLabWatchForge(GitLabSession& s, GitLabWatchReader& rd) : s_(s), rd_(rd) {}

  const std::string& self_login() const override { return s_.self.user.login; }
  RoleLookup roles() override { return rd_.roles(); }
  const char* change_name() const override { return "merge request"; }
  std::unique_ptr<WatchForge> changes() override {
    return std::make_unique<GitLabChangeForge>(s_, rd_);
  }

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
