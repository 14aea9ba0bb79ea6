// run_on: actions (docs/scale-out.md): an admitted, claimed issue is not run here; the
// repository's awaywork workflow is dispatched for it (workflow_dispatch, the issue as input) and
// its run followed: every change of the run's status goes on the claim comment, and when the run
// completes the claim ends as a local unit's would (done, or failed by the failure policy). The
// run's own jobs publish: the apply job opens the pull request and ends the progress comment.
#include <fmt/format.h>

#include "forge/actions.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"

namespace aw {

using namespace watch_detail;

void Watcher::dispatch(Repo& r, IssueSlot& slot, int64_t now) {
  std::string ref = r.watch.workflow_ref.empty() ? r.s->repo.default_branch : r.watch.workflow_ref;
  auto run =
      dispatch_workflow(*r.s, r.watch.workflow, ref, {{"issue", std::to_string(slot.number)}});
  ++slot.attempts;
  if (!run) {
    log_.write("error", with(where(slot), {{"error", run.error().message}}));
    slot.run_status = "not dispatched";
    finish_run(r, slot, "the workflow could not be dispatched: " + run.error().message, false, now);
    return;
  }
  slot.phase = "dispatched";
  slot.run_id = run->id;
  slot.run_url = run->html_url;
  slot.run_status = run->status;
  ++r.running;
  (void)update_claim(*r.s, slot.claim_comment, me_, slot.claim_since,
                     claim_text(slot, fmt::format("Status: dispatched to GitHub Actions, run {} "
                                                  "({}).",
                                                  slot.run_url, describe_run(*run))));
  slot.claim_touched = now;
  keep(slot);
  next_run_check_[slot_key(slot)] = now + cfg_.watch.poll_seconds;
  log_.write("dispatched", with(where(slot), {{"workflow", r.watch.workflow},
                                              {"ref", ref},
                                              {"run", slot.run_id},
                                              {"url", slot.run_url}}));
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
      if (!done) {
        (void)update_claim(*r->s, slot.claim_comment, me_, slot.claim_since,
                           claim_text(slot, fmt::format("Status: GitHub Actions run {}: {}.",
                                                        slot.run_url, status)));
        slot.claim_touched = now;
      }
      keep(slot);
    }
    if (done) {
      IssueSlot copy = slot;  // finish_run may erase the slot from slots_
      finish_run(*r, copy, fmt::format("GitHub Actions run {} {}", slot.run_url, status),
                 run->conclusion == "success", now);
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

}  // namespace aw
