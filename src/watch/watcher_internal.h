// What the watcher's files (watcher*.cc) share: the event log's fields and the claim's
// text. Not for other rooms.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "watch/slot.h"

namespace aw::watch_detail {

inline nlohmann::json where(const IssueSlot& s) {
  // A GitLab merge request's iid is counted apart from the issues': named as what it is.
  return {{"repo", s.repo}, {s.mr ? "merge_request" : s.pull ? "pull" : "issue", s.number}};
}

// A claim's status, after what it must keep saying.
inline std::string claim_text(const IssueSlot& s, const std::string& status) {
  return s.claim_note.empty() ? status : s.claim_note + "\n\n" + status;
}

inline nlohmann::json with(nlohmann::json j, const nlohmann::json& more) {
  for (auto& [k, v] : more.items()) j[k] = v;
  return j;
}

// The issue's labels and assignees as GitHub lists them: one whose name is not a string is not
// the one named (a comparison of JSON values, which never throws on a hostile answer).
inline bool has_label(const nlohmann::json& issue, const std::string& name) {
  if (name.empty() || !issue.contains("labels") || !issue["labels"].is_array()) return false;
  for (const nlohmann::json& l : issue["labels"])
    if (l.is_object() && l.contains("name") && l["name"] == name) return true;
  return false;
}

inline bool assigned_to(const nlohmann::json& issue, const std::string& login) {
  if (login.empty() || !issue.contains("assignees") || !issue["assignees"].is_array()) return false;
  for (const nlohmann::json& a : issue["assignees"])
    if (a.is_object() && a.contains("login") && a["login"] == login) return true;
  return false;
}

// The poll interval slowed before a rate limit is spent: what is left (remaining, -1 = not said)
// is spread until its reset (Unix seconds), over every watched repository.
inline int64_t slowed_interval(int64_t interval, int64_t remaining, int64_t reset, int64_t now,
                               size_t repos) {
  if (remaining >= 0 && reset > now && remaining < 4 * static_cast<int64_t>(repos))
    interval = std::max(interval, (reset - now) / std::max<int64_t>(remaining / 4, 1));
  return interval;
}

}  // namespace aw::watch_detail
