#include "watch/slot.h"

#include <fmt/format.h>

#include "record/store.h"

namespace aw {

std::string slot_key(const std::string& repo, int64_t number) {
  return fmt::format("issue/{}/{:012}", repo, number);
}

nlohmann::json to_json(const IssueSlot& s) {
  return {{"repo", s.repo},
          {"number", s.number},
          {"phase", s.phase},
          {"seen_event", s.seen.event},
          {"seen_comment", s.seen.comment},
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

IssueSlot slot_from_json(const nlohmann::json& j) {
  IssueSlot s;
  s.repo = j.value("repo", "");
  s.number = j.value("number", int64_t{0});
  s.phase = j.value("phase", "idle");
  s.seen.event = j.value("seen_event", int64_t{0});
  s.seen.comment = j.value("seen_comment", int64_t{0});
  s.queued_at = j.value("queued_at", int64_t{0});
  s.not_before = j.value("not_before", int64_t{0});
  s.trigger = j.value("trigger", "");
  s.trigger_at = j.value("trigger_at", int64_t{0});
  s.requeued = j.value("requeued", false);
  s.claim_comment = j.value("claim_comment", int64_t{0});
  s.claim_since = j.value("claim_since", int64_t{0});
  s.claim_touched = j.value("claim_touched", int64_t{0});
  s.claim_note = j.value("claim_note", "");
  s.ended_claim = j.value("ended_claim", int64_t{0});
  s.attempt_host = j.value("attempt_host", "");
  s.attempt_pid = j.value("attempt_pid", int64_t{0});
  s.attempt_since = j.value("attempt_since", int64_t{0});
  s.unit_id = j.value("unit_id", "");
  s.child_pid = j.value("child_pid", int64_t{0});
  s.child_start = j.value("child_start", "");
  s.phases_logged = j.value("phases_logged", size_t{0});
  s.attempts = j.value("attempts", 0);
  s.stop_reason = j.value("stop_reason", "");
  s.run_id = j.value("run_id", int64_t{0});
  s.run_url = j.value("run_url", "");
  s.run_status = j.value("run_status", "");
  return s;
}

Result<IssueSlot> load_slot(Store& store, const std::string& repo, int64_t number) {
  AW_TRY(auto j, store.watch_get(slot_key(repo, number)));
  if (!j) {
    IssueSlot s;
    s.repo = repo;
    s.number = number;
    return s;
  }
  return slot_from_json(*j);
}

Status save_slot(Store& store, const IssueSlot& s) {
  return store.watch_put(slot_key(s.repo, s.number), to_json(s));
}

}  // namespace aw
