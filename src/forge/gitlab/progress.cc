#include "forge/gitlab/progress.h"

#include <fmt/format.h>

#include "check/redact.h"
#include "forge/gitlab/text.h"
#include "forge/marker.h"
#include "forge/progress_post.h"

namespace aw {

using nlohmann::json;

GitLabProgressNote::GitLabProgressNote(GitLabSession& s, int64_t issue, std::string unit_id,
                                       std::string noteable)
    : ProgressPost(std::move(unit_id)), s_(s), issue_(issue), noteable_(std::move(noteable)) {}

Status GitLabProgressNote::write(const std::string& status) {
  std::string body =
      with_marker(gitlab_inert(text(status)), item_marker(unit_id_, "progress", "-"));
  std::string notes = fmt::format("{}/{}/{}/notes", s_.project_target(), noteable_, issue_);
  if (id_ == 0) {
    AW_TRY(json list, s_.gl.get_all(notes + "?sort=asc&per_page=100"));
    AW_TRY(auto found, gitlab_notes_from_json(list, "GET " + notes));
    for (const GitLabNote& n : found)
      if (!n.system && n.comment.author.login == s_.self.user.login &&
          has_marker(n.comment.body, unit_id_, "progress")) {
        id_ = n.comment.id;
        if (n.comment.body == body) return {};  // a replay writes nothing
        break;
      }
  }
  if (id_ != 0) {
    AW_CHECK(s_.gl.put(fmt::format("{}/{}", notes, id_), json{{"body", body}}));
    return {};
  }
  AW_TRY(json made, s_.gl.post(notes, json{{"body", body}}));
  if (!made.is_object() || !made.contains("id") || !made["id"].is_number_integer())
    return fail("POST {}: the answer has no whole number 'id'", notes);
  id_ = made["id"].get<int64_t>();
  return {};
}

std::string gitlab_progress_outcome(const std::string& mr_url, const std::string& state,
                                    const std::string& reason) {
  if (!mr_url.empty()) return fmt::format("Done: draft merge request {}", mr_url);
  return progress_ended(state, reason);
}

Status gitlab_end_progress(GitLabSession& s, const UnitRecord& u, const std::string& mr_url,
                           const std::string& state, const std::string& reason,
                           const std::string& noteable) {
  if (u.issue <= 0) return {};
  GitLabProgressNote note(s, u.issue, u.id, noteable);
  note.resume(u.agent, u.isolation, u.sandbox);
  return note.finish(gitlab_progress_outcome(mr_url, state, redact_all(reason, {s.token})));
}

}  // namespace aw
