// One unit, end to end: prepare → phases (setup, agent, checks) → collect → check → apply → record.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "config/config.h"
#include "record/record.h"

namespace aw {

struct RunRequest {
  std::string repo;                 // a name from config `repos:`, or a path to a git repository
  std::string prompt;               // the task text
  std::string agent;                // "" = config `agent:`, or the only agent defined
  std::string base;                 // "" = the repo's `base:`, or the source's HEAD
  std::optional<int> unit_seconds;  // overrides unit_minutes
  std::string profile;              // "" = the repo's `profile:`, else the agent's, else none
  int64_t issue = 0;                // run --issue: the task is built from this issue of repo
  std::string base_commit;          // replay: the unit starts from this commit (base names it)
  std::string replay_of;            // replay: the unit this one repeats
  bool progress_comment = true;     // with issue: false when watch's claim comment is the progress
  // run --artifact: checked but not published, no progress comment (the agent job of the
  // reusable workflow has a read-only token; `apply --from DIR` publishes in the apply job).
  bool hold = false;
};

// How the caller follows a unit (progress display, Ctrl-C). Every member may be empty.
struct UnitObserver {
  std::function<void(const UnitRecord&)> started;       // record exists, before any phase
  std::function<void(const std::string& phase)> phase;  // a phase begins
  std::function<void(const PhaseRecord&)> phase_done;
  std::function<bool()> cancelled;  // polled ~10 times a second
};

// An Error means no unit was made (bad repo, unknown agent, unreadable config); once the unit
// exists every outcome is a record (done, failed, timed_out, lost, interrupted).
Result<UnitRecord> run_unit(const Config& cfg, const RunRequest& req, const UnitObserver& obs);

class Store;
// Kill what a crashed awaywork left running (phase cgroups whose keeper is gone, containers of
// its units) and mark its `running` records interrupted. Called by every command that opens the
// record.
int recover_abandoned(const Config& cfg, Store& store);

// Where the state lives: cfg.state_dir or the XDG default.
std::string state_dir_of(const Config& cfg);

}  // namespace aw
