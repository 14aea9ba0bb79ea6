// What watch knows about one issue, kept in the state database (record/store.h watch_state) under
// "issue/REPO/N" so that a restart continues where the last watch stopped: the last event and
// comment handled, where the issue is (idle, queued, claiming, running), its claim, its unit.
// A pull request's slot (`pull`, issue 26) is kept the same way, under its number (GitHub numbers
// issues and pull requests in one sequence): the reviews and comments handled, its follow-ups.
// A GitLab merge request's slot (`mr`) is kept under "issue/REPO/!N": GitLab numbers merge
// requests apart from issues, so !3 and #3 are two slots.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "watch/triggers.h"

namespace aw {

class Store;

struct IssueSlot {
  std::string repo;  // the repos: name
  int64_t number = 0;
  std::string phase = "idle";  // idle, queued, claiming, running, dispatched (run_on: actions)
  Seen seen;
  int64_t queued_at = 0;
  int64_t not_before = 0;  // after a failed claim: not tried again before this (no hammering)
  std::string trigger;     // the admitted finding's reason, for the log and the claim
  int64_t trigger_at = 0;  // when it happened; a claim made since then has handled it
  bool requeued = false;   // queued again by watch itself (retry, window, shutdown)
  int64_t claim_comment = 0, claim_since = 0, claim_touched = 0;
  std::string claim_note;  // kept in every edit of the claim ("took over the stale claim of H")
  // What this watcher left on the issue for the current trigger (claim.h OwnClaims): the claim it
  // ended before queueing the issue again, and a claim being posted (recorded before the post:
  // a watch killed before it kept the comment's id, or whose answer was lost, knows it later).
  int64_t ended_claim = 0;
  std::string attempt_host;
  int64_t attempt_pid = 0, attempt_since = 0;
  std::string unit_id;
  int64_t child_pid = 0;
  std::string child_start;
  size_t phases_logged = 0;
  int attempts = 0;         // units run for the current trigger
  std::string stop_reason;  // why watch stopped its unit ("window ended", "watch stopped")
  int64_t run_id = 0;       // run_on: actions: the workflow run dispatched for the issue
  std::string run_url, run_status;
  // A pull request (issue 26; watcher_pulls.cc): its units are follow-ups (`run --pr`), each
  // claimed on the pull request for its trigger batch (claim.h claim_follow_up), and what arrives
  // while one runs is batched into the next (pending).
  bool pull = false;
  bool mr = false;  // a GitLab merge request (`run --pr NAME!N`); pull is set too
  // 0 not read yet, 1 awaywork's own (its branch), 2 someone else's with a head to start from (a
  // command opens awaywork's draft pull request against its branch, or, for a fork, pushes a branch
  // here and comments its compare link), 3 one that run --pr refuses whatever is asked (its head
  // gone, or awaywork's own from a fork; read again when it changes).
  int pull_own = 0;
  int follow_units = 0;      // follow-up units watch started on it (follow_up.max_units_per_pr)
  int64_t follow_ended = 0;  // when the last one ended (follow_up.cooldown counts from it)
  bool pending = false;      // an admitted trigger arrived while a unit ran: one more unit
  bool limit_said = false;   // the marked comment saying the limit stopped it is posted
  // The follow-up claim's keys (claim.h follow_up_key): the newest admitted trigger of the batch
  // queued or pending, and the batch the current claim (claim_comment) holds.
  std::string trigger_key, claim_key;
};

// s queued at now for a newly admitted trigger (its reason): not a retry, no unit run for it yet.
// The caller adds what its kind keeps of the trigger (trigger_at, trigger_key).
void queue_slot(IssueSlot& s, int64_t now, const std::string& trigger);

std::string slot_key(const std::string& repo, int64_t number, bool mr = false);
std::string slot_key(const IssueSlot& s);
nlohmann::json to_json(const IssueSlot& s);
// `what` names it in an error ("watch state issue/web/000000000042"); a discarded value (a row
// that was not JSON, from Store::watch_list) is an error too.
Result<IssueSlot> slot_from_json(const nlohmann::json& j, const std::string& what);

Result<IssueSlot> load_slot(Store& store, const std::string& repo, int64_t number, bool mr = false);
Status save_slot(Store& store, const IssueSlot& s);

}  // namespace aw
