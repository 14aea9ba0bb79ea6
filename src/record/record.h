// What lasts of a unit: its record (SQLite, WAL) and its files under runs/<id>/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace aw {

// A unit's state. `running` only while its runner is alive; a later start turns a `running`
// record whose runner is gone into `interrupted`.
// `refused`: the output check refused the patch or the requests; nothing was published.
// skipped: the repository's `when:` said there is nothing to do (no agent ran, nothing published).
enum class UnitState { running, done, failed, timed_out, lost, interrupted, refused, skipped };
const char* to_string(UnitState s);

struct PhaseRecord {
  std::string name;  // setup, agent, check 1, ...
  std::vector<std::string> argv;
  std::string started_at;  // ISO 8601 UTC
  int64_t duration_ms = 0;
  std::string end;  // exited, signaled, timed_out, cancelled, failed_to_start
  int exit_code = -1;
  int signal = 0;
  int leftovers_killed = 0;
  std::vector<std::string> leftover_names;
  std::string containment;
  std::string outcome;               // describe(): "exit 0", "timed out after 60 s"
  std::vector<std::string> secrets;  // names of the secrets handed to this phase (never values)
};

// The note a follow-up unit's record opens with ("follow-up of pull request #9 (branch B)"),
// written by its source (forge/pr_source.h: `run --pr`, watch): `awaywork apply ID` refuses such
// a unit (its publisher is not the forge's usual one), and serve shows it in its pull request's
// thread.
inline constexpr std::string_view kFollowUpNote = "follow-up of pull request #";
bool is_follow_up(const std::vector<std::string>& notes);

struct UnitRecord {
  std::string id;
  std::string created_at;  // ISO 8601 UTC
  std::string ended_at;
  UnitState state = UnitState::running;
  std::string reason;  // why it failed / was lost; "" when done
  std::string repo;    // config name or path as given
  std::string source;  // source git dir
  std::string agent;
  std::string profile;  // the environment profile handed to the phases ("" = none)
  std::string prompt;   // as given (the record keeps it redacted)
  std::string base_ref, base_commit;
  std::string isolation;  // "none", ...
  std::string sandbox;    // "sandboxed" or "unsandboxed: <reason>"
  std::string run_dir;
  std::string work;        // the clone (kept for inspection; where depends on isolation)
  std::string forge_repo;  // OWNER/REPO when the repository is on a forge
  int64_t issue = 0;       // the issue the unit came from (0 = none)
  std::string issue_title, issue_url;  // as the forge gave them (hostile text: shown inert)
  std::string replay_of;               // the unit this one repeats (`awaywork replay`), "" if none
  std::string pull_request;            // the draft pull request's URL, once opened
  std::string branch;                  // set when published
  std::string commit;
  std::string patch_stat;
  int patch_files = 0;
  std::vector<std::string> omitted;   // untracked binaries left out of the patch
  std::string verdict;                // "", "accepted" or "refused"
  std::vector<std::string> refusals;  // "rule path:line: detail", every reason
  int requests = 0;                   // checked requests kept (runs/<id>/requests.json)
  std::vector<std::string> notes;     // repairs, leftovers: things a reader should know
  std::vector<PhaseRecord> phases;
  // The phase running now (its name, argv and started_at only), saved as it starts so that a
  // reader of the record (the dashboard's phase clock) sees it; none between phases and once the
  // unit ended. A record whose runner died keeps it: only a running unit's means anything.
  std::optional<PhaseRecord> current_phase;
  int64_t runner_pid = 0;
  std::string runner_start;  // /proc/PID/stat start time, to tell a reused pid apart
};

nlohmann::json to_json(const UnitRecord& u);
// A record read back: from the database, a run folder's summary.json or an artifact's record.json
// (hostile: another job wrote it). A field absent takes its default (older records lack newer
// fields); a field of the wrong type or out of range is an Error naming `what` and the field:
//   record.json: field "phases[0].exit_code": expected an integer, got string
Result<UnitRecord> unit_from_json(const nlohmann::json& j, const std::string& what = "record");

}  // namespace aw
