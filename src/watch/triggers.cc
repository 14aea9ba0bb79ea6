#include "watch/triggers.h"

#include <fmt/format.h>

#include "watch/iso_time.h"

namespace aw {

using nlohmann::json;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int64_t id_of(const json& j) {
  return j.is_object() && j.contains("id") && j["id"].is_number_integer() ? j["id"].get<int64_t>()
                                                                          : 0;
}

std::string str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// One event of the kind the repository triggers on, or nullopt.
std::optional<std::string> trigger_kind(const WatchRepoConfig& spec, const json& e) {
  std::string what = str(e, "event");
  if (what == "labeled" && !spec.label.empty() && e.contains("label") &&
      lower(str(e["label"], "name")) == lower(spec.label))
    return "label";
  if (what == "assigned" && !spec.assignee.empty() && e.contains("assignee") &&
      lower(str(e["assignee"], "login")) == lower(spec.assignee))
    return "assignment";
  return std::nullopt;
}

TriggerFinding judge(const std::string& kind, const json& who, int64_t id, const AdmitFn& admit) {
  TriggerFinding f{kind, "", id, 0, false, ""};
  auto user = user_from_json(who, kind);
  const char* verb = kind == "label"            ? "label added"
                     : kind == "assignment"     ? "assigned"
                     : kind == "review"         ? "review requesting changes"
                     : kind == "review_comment" ? "review comment"
                                                : "comment";
  if (!user) {
    f.reason =
        fmt::format("{} by an unreadable actor ({}), not admitted", verb, user.error().message);
    return f;
  }
  f.actor = user->login;
  Admitted a = admit(*user);
  f.admitted = a.admitted;
  f.reason = fmt::format("{} by @{}: {}", verb, user->login, a.reason);
  return f;
}

bool by_self(const json& j, const std::string& self_login) {
  return !self_login.empty() && j.is_object() && j.contains("user") &&
         lower(str(j["user"], "login")) == lower(self_login);
}

// An edit never triggers: what was asked may not be what was admitted.
void refuse_edited(const json& c, TriggerFinding& f) {
  if (str(c, "created_at") == str(c, "updated_at")) return;
  f.admitted = false;
  f.reason = fmt::format("{} by @{} was edited: an edited comment never triggers",
                         f.kind == "review_comment" ? "review comment" : "comment", f.actor);
}

}  // namespace

bool TriggerScan::admitted() const {
  for (const auto& f : found)
    if (f.admitted) return true;
  return false;
}

bool is_command(const std::string& body, const std::string& command) {
  if (command.empty() || body.compare(0, command.size(), command) != 0) return false;
  if (body.size() == command.size()) return true;
  char next = body[command.size()];
  return next == ' ' || next == '\t' || next == '\n' || next == '\r';
}

TriggerScan scan_triggers(const WatchRepoConfig& spec, const json& events, const json& comments,
                          Seen seen, const AdmitFn& admit) {
  TriggerScan scan;
  scan.seen = seen;
  if (events.is_array())
    for (const json& e : events) {
      int64_t id = id_of(e);
      if (id <= seen.event) continue;
      scan.seen.event = std::max(scan.seen.event, id);
      if (auto kind = trigger_kind(spec, e)) {
        scan.found.push_back(judge(*kind, e.contains("actor") ? e["actor"] : json(), id, admit));
        scan.found.back().at = parse_iso_utc(str(e, "created_at")).value_or(0);
      }
    }
  if (comments.is_array())
    for (const json& c : comments) {
      int64_t id = id_of(c);
      if (id <= seen.comment) continue;
      scan.seen.comment = std::max(scan.seen.comment, id);
      if (!is_command(str(c, "body"), spec.command)) continue;
      TriggerFinding f = judge("command", c.contains("user") ? c["user"] : json(), id, admit);
      f.at = parse_iso_utc(str(c, "created_at")).value_or(0);
      // An edit never triggers: what was asked may not be what was admitted.
      if (str(c, "created_at") != str(c, "updated_at")) {
        f.admitted = false;
        f.reason =
            fmt::format("comment by @{} was edited: an edited comment never triggers", f.actor);
      }
      scan.found.push_back(std::move(f));
    }
  return scan;
}

TriggerScan scan_pull_triggers(const std::string& command, const json& reviews,
                               const json& review_comments, const json& comments, Seen seen,
                               const std::string& self_login, const AdmitFn& admit) {
  TriggerScan scan;
  scan.seen = seen;
  if (reviews.is_array())
    for (const json& v : reviews) {
      int64_t id = id_of(v);
      if (id <= seen.review) continue;
      scan.seen.review = std::max(scan.seen.review, id);
      // Only a review that asks for changes asks for work; its comments are review comments.
      if (str(v, "state") != "CHANGES_REQUESTED" || by_self(v, self_login)) continue;
      TriggerFinding f = judge("review", v.contains("user") ? v["user"] : json(), id, admit);
      f.at = parse_iso_utc(str(v, "submitted_at")).value_or(0);
      scan.found.push_back(std::move(f));
    }
  if (review_comments.is_array())
    for (const json& c : review_comments) {
      int64_t id = id_of(c);
      if (id <= seen.review_comment) continue;
      scan.seen.review_comment = std::max(scan.seen.review_comment, id);
      if (by_self(c, self_login)) continue;
      TriggerFinding f =
          judge("review_comment", c.contains("user") ? c["user"] : json(), id, admit);
      f.at = parse_iso_utc(str(c, "created_at")).value_or(0);
      refuse_edited(c, f);
      scan.found.push_back(std::move(f));
    }
  if (comments.is_array())
    for (const json& c : comments) {
      int64_t id = id_of(c);
      if (id <= seen.comment) continue;
      scan.seen.comment = std::max(scan.seen.comment, id);
      if (by_self(c, self_login) || !is_command(str(c, "body"), command)) continue;
      TriggerFinding f = judge("command", c.contains("user") ? c["user"] : json(), id, admit);
      f.at = parse_iso_utc(str(c, "created_at")).value_or(0);
      refuse_edited(c, f);
      scan.found.push_back(std::move(f));
    }
  return scan;
}

}  // namespace aw
