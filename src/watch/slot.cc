#include "watch/slot.h"

#include <fmt/format.h>

#include "base/json_read.h"
#include "record/store.h"

namespace aw {

void queue_slot(IssueSlot& s, int64_t now, const std::string& trigger) {
  s.phase = "queued";
  s.queued_at = now;
  s.trigger = trigger;
  s.requeued = false;
  s.attempts = 0;
}

std::string slot_key(const std::string& repo, int64_t number, bool mr) {
  return fmt::format("issue/{}/{}{:012}", repo, mr ? "!" : "", number);
}

std::string slot_key(const IssueSlot& s) {
  return slot_key(s.repo, s.number, s.mr);
}

nlohmann::json to_json(const IssueSlot& s) {
  return {{"repo", s.repo},
          {"number", s.number},
          {"phase", s.phase},
          {"seen_event", s.seen.event},
          {"seen_comment", s.seen.comment},
          {"seen_review", s.seen.review},
          {"seen_review_comment", s.seen.review_comment},
          {"pull", s.pull},
          {"mr", s.mr},
          {"pull_own", s.pull_own},
          {"follow_units", s.follow_units},
          {"follow_ended", s.follow_ended},
          {"pending", s.pending},
          {"limit_said", s.limit_said},
          {"trigger_key", s.trigger_key},
          {"claim_key", s.claim_key},
          {"queued_at", s.queued_at},
          {"not_before", s.not_before},
          {"trigger", s.trigger},
          {"trigger_at", s.trigger_at},
          {"requeued", s.requeued},
          {"claim_comment", s.claim_comment},
          {"claim_since", s.claim_since},
          {"claim_touched", s.claim_touched},
          {"claim_note", s.claim_note},
          {"ended_claim", s.ended_claim},
          {"attempt_host", s.attempt_host},
          {"attempt_pid", s.attempt_pid},
          {"attempt_since", s.attempt_since},
          {"unit_id", s.unit_id},
          {"child_pid", s.child_pid},
          {"child_start", s.child_start},
          {"phases_logged", s.phases_logged},
          {"attempts", s.attempts},
          {"stop_reason", s.stop_reason},
          {"run_id", s.run_id},
          {"run_url", s.run_url},
          {"run_status", s.run_status}};
}

// Every field read through JsonRead (base/json_read.h): a wrongly typed field in the state
// database is an Error naming it, never an exception that ends watch.
Result<IssueSlot> slot_from_json(const nlohmann::json& j, const std::string& what) {
  if (j.is_discarded()) return fail("{}: not JSON", what);  // Store::watch_list's corrupt row
  JsonRead r(j, what);
  IssueSlot s;
  AW_TRY(s.repo, r.str_or("repo", ""));
  AW_TRY(s.number, r.int_or("number", int64_t{0}));
  AW_TRY(s.phase, r.str_or("phase", "idle"));
  AW_TRY(s.seen.event, r.int_or("seen_event", int64_t{0}));
  AW_TRY(s.seen.comment, r.int_or("seen_comment", int64_t{0}));
  AW_TRY(s.seen.review, r.int_or("seen_review", int64_t{0}));
  AW_TRY(s.seen.review_comment, r.int_or("seen_review_comment", int64_t{0}));
  AW_TRY(s.pull, r.bool_or("pull", false));
  AW_TRY(s.mr, r.bool_or("mr", false));
  AW_TRY(s.pull_own, r.int_or("pull_own", 0));
  AW_TRY(s.follow_units, r.int_or("follow_units", 0));
  AW_TRY(s.follow_ended, r.int_or("follow_ended", int64_t{0}));
  AW_TRY(s.pending, r.bool_or("pending", false));
  AW_TRY(s.limit_said, r.bool_or("limit_said", false));
  AW_TRY(s.trigger_key, r.str_or("trigger_key", ""));
  AW_TRY(s.claim_key, r.str_or("claim_key", ""));
  AW_TRY(s.queued_at, r.int_or("queued_at", int64_t{0}));
  AW_TRY(s.not_before, r.int_or("not_before", int64_t{0}));
  AW_TRY(s.trigger, r.str_or("trigger", ""));
  AW_TRY(s.trigger_at, r.int_or("trigger_at", int64_t{0}));
  AW_TRY(s.requeued, r.bool_or("requeued", false));
  AW_TRY(s.claim_comment, r.int_or("claim_comment", int64_t{0}));
  AW_TRY(s.claim_since, r.int_or("claim_since", int64_t{0}));
  AW_TRY(s.claim_touched, r.int_or("claim_touched", int64_t{0}));
  AW_TRY(s.claim_note, r.str_or("claim_note", ""));
  AW_TRY(s.ended_claim, r.int_or("ended_claim", int64_t{0}));
  AW_TRY(s.attempt_host, r.str_or("attempt_host", ""));
  AW_TRY(s.attempt_pid, r.int_or("attempt_pid", int64_t{0}));
  AW_TRY(s.attempt_since, r.int_or("attempt_since", int64_t{0}));
  AW_TRY(s.unit_id, r.str_or("unit_id", ""));
  AW_TRY(s.child_pid, r.int_or("child_pid", int64_t{0}));
  AW_TRY(s.child_start, r.str_or("child_start", ""));
  AW_TRY(s.phases_logged, r.int_or("phases_logged", int64_t{0}, int64_t{0}));
  AW_TRY(s.attempts, r.int_or("attempts", 0));
  AW_TRY(s.stop_reason, r.str_or("stop_reason", ""));
  AW_TRY(s.run_id, r.int_or("run_id", int64_t{0}));
  AW_TRY(s.run_url, r.str_or("run_url", ""));
  AW_TRY(s.run_status, r.str_or("run_status", ""));
  return s;
}

Result<IssueSlot> load_slot(Store& store, const std::string& repo, int64_t number, bool mr) {
  AW_TRY(auto j, store.watch_get(slot_key(repo, number, mr)));
  if (!j) {
    IssueSlot s;
    s.repo = repo;
    s.number = number;
    s.mr = mr;
    s.pull = mr;
    return s;
  }
  return slot_from_json(*j, "watch state " + slot_key(repo, number, mr));
}

Status save_slot(Store& store, const IssueSlot& s) {
  return store.watch_put(slot_key(s), to_json(s));
}

}  // namespace aw
