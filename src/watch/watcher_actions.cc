// run_on: actions (docs/scale-out.md): an admitted, claimed issue is not run here; the
// repository's awaywork workflow is dispatched for it (workflow_dispatch, the issue as input) and
// its run followed: every change of the run's status goes on the claim comment, and when the run
// completes the claim ends as a local unit's would (done, or failed by the failure policy). The
// run's own jobs publish: the apply job opens the pull request and ends the progress comment.
//
// A follow-up (watcher_pulls.cc) goes the same way once start_pull has claimed it on the pull
// request: the input `pull-request` instead of `issue`, so that the workflow's agent job runs
// `run --pr NAME#N --artifact` and its apply job publishes the one fast-forward commit, the
// replies and the review request (`apply --from`). Its limits were applied before the claim
// (queue_pull: max_units_per_pr, cooldown; check_ci: max_ci_attempts); a dispatched one counts
// as a unit of the pull request, one not dispatched does not. When its run completes, its claim
// ends, the cooldown counts from then and what arrived meanwhile is queued, as after a local
// follow-up. A failed run is not dispatched again (a local follow-up is not retried either).
#include <fmt/format.h>

#include <memory>

#include "forge/actions.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using nlohmann::json;

using namespace watch_detail;

void Watcher::dispatch(Repo& r, IssueSlot& slot, int64_t now) {
  std::string ref = r.watch.workflow_ref.empty() ? r.s->repo.default_branch : r.watch.workflow_ref;
  // The caller workflow hands the one input it gets to the reusable workflow: the issue of a new
  // unit, or the pull request a follow-up continues.
  std::string input = slot.pull ? "pull-request" : "issue";
  auto run = dispatch_workflow(*r.s, r.watch.workflow, ref, {{input, std::to_string(slot.number)}});
  ++slot.attempts;
  if (!run) {
    log_.write("error", with(where(slot), {{"error", run.error().message}}));
    slot.run_status = "not dispatched";
    if (slot.pull) {
      // A caller workflow written before follow-ups declares only `issue`: GitHub refuses the
      // unexpected input, and the claim says what to add.
      return finish_pull_run(r, slot,
                             fmt::format("the workflow could not be dispatched: {} (a follow-up "
                                         "dispatches the input pull-request, which the caller "
                                         "workflow must declare)",
                                         run.error().message),
                             false, /*dispatched=*/false, now);
    }
    finish_run(r, slot, "the workflow could not be dispatched: " + run.error().message, false, now);
    return;
  }
  // Recorded before anything else: the pull request its apply job opens is awaywork's own only
  // when this record names the run (watcher_actions_own.cc).
  record_dispatched_run(slot, run->id, now);
  slot.phase = "dispatched";
  slot.run_id = run->id;
  slot.run_url = run->html_url;
  slot.run_status = run->status;
  ++r.running;
  if (slot.pull) {
    slot.unit_id.clear();
    slot.phases_logged = 0;
    slot.stop_reason.clear();
    slot.pending = false;  // what arrived until now is read by the run's agent job
    ++slot.follow_units;
  }
  say_run_status(r, slot,
                 fmt::format("Status: dispatched to GitHub Actions, run {} ({}).", slot.run_url,
                             describe_run(*run)),
                 now);
  keep(slot);
  next_run_check_[slot_key(slot)] = now + cfg_.watch.poll_seconds;
  json fields = {{"workflow", r.watch.workflow},
                 {"ref", ref},
                 {"input", input},
                 {"run", slot.run_id},
                 {"url", slot.run_url}};
  if (slot.pull) fields["follow_up"] = slot.follow_units;
  log_.write("dispatched", with(where(slot), fields));
}

void Watcher::say_run_status(Repo& r, IssueSlot& slot, const std::string& status, int64_t now) {
  if (slot.pull) {
    // A follow-up's claim is on the pull request, keyed by its batch (claim.h claim_follow_up).
    std::unique_ptr<WatchForge> changes = r.forge->changes();
    Claimant me = me_;
    me.key = slot.claim_key;
    (void)update_claim(*changes, slot.number, slot.claim_comment, me, slot.claim_since,
                       claim_text(slot, status));
  } else {
    (void)update_claim(*r.s, slot.claim_comment, me_, slot.claim_since, claim_text(slot, status));
  }
  slot.claim_touched = now;
}

void Watcher::watch_dispatched(int64_t now) {
  for (auto& [key, slot] : slots_) {
    if (slot.phase != "dispatched" || now < next_run_check_[key]) continue;
    Repo* r = repo_named(slot.repo);
    if (!r) continue;
    next_run_check_[key] = now + cfg_.watch.poll_seconds;
    auto run = get_workflow_run(*r->s, slot.run_id);
    if (!run) {
      log_.write("error",
                 with(where(slot), {{"run", slot.run_id}, {"error", run.error().message}}));
      continue;
    }
    std::string status = describe_run(*run);
    bool done = run->status == "completed";
    if (status != slot.run_status || now - slot.claim_touched > cfg_.watch.claim_ttl / 3) {
      log_.write("run_status", with(where(slot), {{"run", slot.run_id}, {"status", status}}));
      slot.run_status = status;
      if (!done)
        say_run_status(
            *r, slot, fmt::format("Status: GitHub Actions run {}: {}.", slot.run_url, status), now);
      keep(slot);
    }
    if (done) {
      IssueSlot copy = slot;  // finish_run may erase the slot from slots_
      std::string outcome = fmt::format("GitHub Actions run {} {}", slot.run_url, status);
      bool ok = run->conclusion == "success";
      if (copy.pull)
        finish_pull_run(*r, copy, outcome, ok, /*dispatched=*/true, now);
      else
        finish_run(*r, copy, outcome, ok, now);
      return;  // slots_ changed: the others are looked at on the next tick
    }
  }
}

void Watcher::finish_run(Repo& r, IssueSlot& slot, const std::string& outcome, bool ok,
                         int64_t now) {
  if (slot.phase == "dispatched") r.running = std::max(r.running - 1, 0);
  next_run_check_.erase(slot_key(slot));
  ClaimEnd end;
  end.remove_labels = {kRunningLabel};
  bool retry = !ok && slot.attempts <= r.watch.on_failure.retry;
  if (ok) {
    end.text = fmt::format("Done: {}; its apply job published what the check accepted.", outcome);
    end.remove_labels.push_back(r.watch.label);
    end.add_labels = {kDoneLabel};
  } else if (retry) {
    end.text = fmt::format("Failed: {}; trying again ({} of {}).", outcome, slot.attempts,
                           r.watch.on_failure.retry);
  } else {
    end.text = fmt::format("Failed: {}.", outcome);
    end.remove_labels.push_back(r.watch.label);
    end.add_labels = {r.watch.on_failure.label};
  }
  std::string said = end.text;
  end.text = claim_text(slot, end.text);
  auto released = release_claim(*r.s, slot.number, slot.claim_comment, me_, slot.claim_since, end);
  log_.write("released", with(where(slot), {{"run", slot.run_id},
                                            {"state", ok ? "done" : "failed"},
                                            {"text", end.text},
                                            {"requeued", retry},
                                            {"error", released ? "" : released.error().message}}));
  slot.phase = retry ? "queued" : "idle";
  slot.requeued = retry;
  if (retry) slot.queued_at = now;
  // Queued again, the issue's next claim replaces this one and says what it said.
  slot.ended_claim = retry ? slot.claim_comment : 0;
  slot.claim_note = retry ? "Earlier: " + said : "";
  slot.claim_comment = 0;
  slot.run_id = 0;
  slot.run_url.clear();
  slot.run_status.clear();
  keep(slot);
}

void Watcher::finish_pull_run(Repo& r, IssueSlot& slot, const std::string& outcome, bool ok,
                              bool dispatched, int64_t now) {
  if (slot.phase == "dispatched") r.running = std::max(r.running - 1, 0);
  next_run_check_.erase(slot_key(slot));
  log_.write("follow_up_ended", with(where(slot), {{"run", slot.run_id},
                                                   {"url", slot.run_url},
                                                   {"state", ok ? "done" : "failed"},
                                                   {"reason", outcome},
                                                   {"dispatched", dispatched}}));
  // Ended, not deleted (as a local follow-up's): the record that its batch was handled.
  end_pull_claim(
      r, slot,
      ok ? fmt::format("Ended: {}; its apply job published what the check accepted.", outcome)
         : fmt::format("Ended: {}.", outcome));
  slot.phase = "idle";
  slot.follow_ended = now;
  slot.claim_comment = 0;
  slot.ended_claim = 0;
  slot.run_id = 0;
  slot.run_url.clear();
  slot.run_status.clear();
  if (slot.pending) {
    slot.pending = false;
    queue_pull(r, slot, "batched: arrived while the previous follow-up ran", slot.trigger_key, now);
  }
  keep(slot);
}

}  // namespace aw
