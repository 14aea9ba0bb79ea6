// What asks watch for a unit on an issue (DESIGN.md section 10): the trigger label ADDED, an
// assignment to the configured login, a comment starting with the command. Only what happened
// after the last event and comment watch handled counts, and only when its actor is admitted
// (forge/admission.h): a comment also never when edited. Every finding has its reason, for the
// log; nothing here talks to the forge.
//
//   TriggerScan s = scan_triggers(repo_cfg, events_json, comments_json, seen, admit);
//   for (auto& f : s.found) log(f);  seen = s.seen;  any admitted -> queue the issue
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/config.h"
#include "forge/admission.h"
#include "forge/model.h"

namespace aw {

// The newest issue event and comment watch has handled on an issue (GitHub's ids).
struct Seen {
  int64_t event = 0, comment = 0;
};

struct TriggerFinding {
  std::string kind;  // "label", "assignment", "command"
  std::string actor;
  int64_t id = 0;  // the event's or comment's id
  int64_t at = 0;  // when it happened (Unix seconds)
  bool admitted = false;
  std::string reason;  // "label added by @x: role read, not admitted"
};

struct TriggerScan {
  std::vector<TriggerFinding> found;
  Seen seen;  // advanced past everything looked at
  bool admitted() const;
};

using AdmitFn = std::function<Admitted(const ForgeUser&)>;

// events: GET /repos/O/R/issues/N/events; comments: GET .../issues/N/comments (either may be
// null when not read).
TriggerScan scan_triggers(const WatchRepoConfig& spec, const nlohmann::json& events,
                          const nlohmann::json& comments, Seen seen, const AdmitFn& admit);

// Whether a comment body is the command: at its first character, then the end or a blank.
bool is_command(const std::string& body, const std::string& command);

}  // namespace aw
