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

// The newest issue event and comment watch has handled on an issue (GitHub's ids); on a pull
// request also the newest review and review comment.
struct Seen {
  int64_t event = 0, comment = 0;
  int64_t review = 0, review_comment = 0;
};

struct TriggerFinding {
  std::string kind;  // "label", "assignment", "command"; on a pull request "review",
                     // "review_comment", "command"
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

// What asks watch for a follow-up unit on a pull request (issue 26): a review that requests
// changes, a review comment, a conversation comment starting with the command; each only after
// `seen`, by an admitted person, and never edited (an edit could swap the words admitted).
// awaywork's own reviews and comments (self_login, any case: its replies and progress comments)
// are passed over without a finding. reviews: GET .../pulls/N/reviews; review_comments: GET
// .../pulls/N/comments; comments: GET .../issues/N/comments (any may be null when not read).
TriggerScan scan_pull_triggers(const std::string& command, const nlohmann::json& reviews,
                               const nlohmann::json& review_comments,
                               const nlohmann::json& comments, Seen seen,
                               const std::string& self_login, const AdmitFn& admit);

// Whether a comment body is the command: at its first character, then the end or a blank.
bool is_command(const std::string& body, const std::string& command);

}  // namespace aw
