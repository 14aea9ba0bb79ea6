// What watcher_units.cc and watcher_actions.cc share: the event log's fields and the claim's
// text. Not for other rooms.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "watch/slot.h"

namespace aw::watch_detail {

inline nlohmann::json where(const IssueSlot& s) {
  return {{"repo", s.repo}, {s.pull ? "pull" : "issue", s.number}};
}

// A claim's status, after what it must keep saying.
inline std::string claim_text(const IssueSlot& s, const std::string& status) {
  return s.claim_note.empty() ? status : s.claim_note + "\n\n" + status;
}

inline nlohmann::json with(nlohmann::json j, const nlohmann::json& more) {
  for (auto& [k, v] : more.items()) j[k] = v;
  return j;
}

}  // namespace aw::watch_detail
