#include "forge/progress.h"

#include <fmt/format.h>

#include "check/redact.h"
#include "forge/marker.h"
#include "forge/publish.h"

namespace aw {

using nlohmann::json;

ProgressComment::ProgressComment(ForgeSession& s, int64_t issue, std::string unit_id)
    : ProgressPost(std::move(unit_id)), s_(s), issue_(issue) {}

Status ProgressComment::find_or_post(const std::string& body) {
  std::string list =
      fmt::format("/repos/{}/issues/{}/comments?per_page=100", s_.owner_repo, issue_);
  AW_TRY(json comments, s_.gh.get_all(list));
  for (const json& c : comments) {
    auto one = comment_from_json(c, "GET comments");
    if (one && one->author.login == s_.self_login && has_marker(one->body, unit_id_, "progress")) {
      id_ = one->id;
      if (one->body == body) return {};  // a replay writes nothing
      return s_.gh
          .patch(fmt::format("/repos/{}/issues/comments/{}", s_.owner_repo, id_),
                 json{{"body", body}})
          .map([](json) {});
    }
  }
  AW_TRY(json made, s_.gh.post(fmt::format("/repos/{}/issues/{}/comments", s_.owner_repo, issue_),
                               json{{"body", body}}));
  AW_TRY(ForgeComment c, comment_from_json(made, "POST comments"));
  id_ = c.id;
  return {};
}

Status ProgressComment::write(const std::string& status) {
  // The status may end with the unit's reason, which carries the agent's words.
  std::string body = with_marker(text(status), item_marker(unit_id_, "progress", "-"));
  if (id_ == 0) return find_or_post(body);
  AW_CHECK(s_.gh.patch(fmt::format("/repos/{}/issues/comments/{}", s_.owner_repo, id_),
                       json{{"body", body}}));
  return {};
}

std::string progress_outcome(const std::string& pull_url, const std::string& state,
                             const std::string& reason) {
  if (!pull_url.empty()) return fmt::format("Done: draft pull request {}", pull_url);
  return progress_ended(state, reason);
}

Status end_progress(ForgeSession& s, const UnitRecord& u, const std::string& pull_url,
                    const std::string& state, const std::string& reason) {
  if (u.issue <= 0) return {};
  ProgressComment pc(s, u.issue, u.id);
  pc.resume(u.agent, u.isolation, u.sandbox);
  return pc.finish(progress_outcome(pull_url, state, redact_all(reason, {s.token})));
}

}  // namespace aw
