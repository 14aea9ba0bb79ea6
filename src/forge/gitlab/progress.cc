#include "forge/gitlab/progress.h"

#include <fmt/format.h>

#include "check/redact.h"
#include "forge/gitlab/text.h"
#include "forge/marker.h"
#include "forge/progress.h"

namespace aw {

using nlohmann::json;

GitLabProgressNote::GitLabProgressNote(GitLabSession& s, int64_t issue, std::string unit_id,
                                       std::string noteable)
    : s_(s), issue_(issue), unit_id_(std::move(unit_id)), noteable_(std::move(noteable)) {}

Status GitLabProgressNote::write(const std::string& status) {
  std::string body = with_marker(gitlab_inert(head_ + (status.empty() ? "" : "\n\n" + status)),
                                 item_marker(unit_id_, "progress", "-"));
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

void GitLabProgressNote::resume(const std::string& agent, const std::string& isolation,
                                const std::string& sandbox_note) {
  head_ = progress_head(unit_id_, agent, isolation, sandbox_note);
}

Status GitLabProgressNote::start(const std::string& agent, const std::string& isolation,
                                 const std::string& sandbox_note) {
  resume(agent, isolation, sandbox_note);
  return write("Status: starting.");
}

Status GitLabProgressNote::phase(const std::string& name, int64_t elapsed_seconds) {
  return write(progress_phase_status(name, elapsed_seconds));
}

Status GitLabProgressNote::finish(const std::string& outcome) {
  return write(outcome);
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

namespace {

void record(UnitRecord& u, const Status& s, const char* when) {
  if (!s) u.notes.push_back(fmt::format("progress note ({}): {}", when, s.error().message));
}

}  // namespace

void GitLabProgressObserver::started(UnitRecord& u) {
  note_.emplace(s_, issue_, u.id, noteable_);
  record(u, note_->start(u.agent, u.isolation, u.sandbox), "start");
  began_ = std::chrono::steady_clock::now();
}

void GitLabProgressObserver::phase_started(UnitRecord& u, const std::string& phase) {
  if (!note_) return;
  auto s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began_);
  record(u, note_->phase(phase, s.count()), "phase");
}

void GitLabProgressObserver::ended(UnitRecord& u, UnitState state, const std::string& reason) {
  if (!note_) return;
  record(u, note_->finish(gitlab_progress_outcome(u.pull_request, to_string(state), reason)),
         "end");
}

}  // namespace aw
