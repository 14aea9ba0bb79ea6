// One unit, end to end: prepare → phases (setup, agent, checks) → collect → check → apply → record.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "config/paths.h"  // state_dir_of, which every caller of run_unit needs
#include "record/record.h"
#include "unit/publisher.h"

namespace aw {

// Where a request came from, as data: which source built it, from which item, who asked. The
// pipeline records it and names the unit for it; it never reads the item again (a forge's issue is
// read by the forge's source, before the unit exists).
struct RunOrigin {
  std::string source = "run";      // run, replay, issue: the source that built the request
  int64_t issue = 0;               // the issue the task was built from (its repository is repo's)
  std::string title, url;          // the issue's title and address, for the record
  std::string asked_by;            // the issue's author ("" = the owner, at the command line)
  std::vector<std::string> notes;  // what the source says in the record (comments left out)
};

struct RunRequest {
  std::string repo;                 // a name from config `repos:`, or a path to a git repository
  std::string prompt;               // the task text
  std::string agent;                // "" = config `agent:`, or the only agent defined
  std::string base;                 // "" = the repo's `base:`, or the source's HEAD
  std::optional<int> unit_seconds;  // overrides unit_minutes
  std::string profile;              // "" = the repo's `profile:`, else the agent's, else none
  std::string base_commit;          // replay: the unit starts from this commit (base names it)
  std::string replay_of;            // replay: the unit this one repeats
  RunOrigin origin;
  // A pull request's follow-up (issue 26): the clone is the pull request's head (base), but the
  // agent's instructions and settings are this ref's (the pull request's base branch), never the
  // head's. "" = the clone's own.
  std::string instructions_from;
  // run --artifact: checked but not published (the agent job of the reusable workflow has a
  // read-only token; `apply --from DIR` publishes in the apply job).
  bool hold = false;
};

// How the caller follows a unit (progress display, Ctrl-C, an issue's progress comment). Every
// method does nothing unless overridden. What an observer adds to u.notes is recorded.
class UnitObserver {
 public:
  virtual ~UnitObserver() = default;
  virtual void started(UnitRecord& u) { (void)u; }  // record exists, before any phase
  virtual void phase_started(UnitRecord& u, const std::string& phase) { (void)u, (void)phase; }
  virtual void phase_ended(const PhaseRecord& p) { (void)p; }
  // The unit ends in state, for reason (redacted of the unit's secrets); u.pull_request is set
  // when it was published. Called before the state is recorded.
  virtual void ended(UnitRecord& u, UnitState state, const std::string& reason) {
    (void)u, (void)state, (void)reason;
  }
  virtual bool cancelled() { return false; }  // polled ~10 times a second
};

// Several observers as one: each told in order; cancelled when one of them says so.
class Observers : public UnitObserver {
 public:
  explicit Observers(std::vector<UnitObserver*> all) : all_(std::move(all)) {}
  void started(UnitRecord& u) override;
  void phase_started(UnitRecord& u, const std::string& phase) override;
  void phase_ended(const PhaseRecord& p) override;
  void ended(UnitRecord& u, UnitState state, const std::string& reason) override;
  bool cancelled() override;

 private:
  std::vector<UnitObserver*> all_;  // not owned; null entries are skipped
};

// An Error means no unit was made (bad repo, unknown agent, unreadable config, a publisher that
// cannot be opened); once the unit exists every outcome is a record (done, failed, timed_out,
// lost, interrupted). publishers: the caller's (publisher.h); without them git's own publishes.
Result<UnitRecord> run_unit(const Config& cfg, const RunRequest& req, UnitObserver& obs,
                            const OpenPublisher& publishers = {});

class Store;
// Kill what a crashed awaywork left running (phase cgroups whose keeper is gone, containers of
// its units) and mark its `running` records interrupted. Called by every command that opens the
// record.
int recover_abandoned(const Config& cfg, Store& store);

}  // namespace aw
