// The units of watch: claiming a queued issue, running it as `awaywork run --issue`, following
// its record (unit started, phase ended), stopping it at the window's end or after the shutdown
// grace, and ending its claim by the outcome and the failure policy. recover() picks up what a
// previous watch left (after a restart or a kill -9).
#include <fmt/format.h>

#include <algorithm>

#include "base/fs.h"
#include "check/sanitize.h"
#include "forge/publish.h"
#include "unit/pipeline.h"
#include "watch/iso_time.h"
#include "watch/watcher.h"
#include "watch/watcher_internal.h"
#include "watch/window.h"

namespace aw {

using nlohmann::json;

using namespace watch_detail;

namespace {

// The claim is public: the sandbox as a reviewer needs it (forge/publish.h), not the record's note.
std::string started_text(const UnitRecord& u) {
  return fmt::format("Status: unit `{}` started: agent `{}`, isolation {}, sandbox {}.", u.id,
                     u.agent, u.isolation, published_sandbox(u.sandbox));
}

std::string phase_text(const UnitRecord& u, int64_t elapsed) {
  return fmt::format(
      "Status: unit `{}` (agent `{}`, isolation {}): phase `{}` ended ({}), {} s in.", u.id,
      u.agent, u.isolation, u.phases.back().name, u.phases.back().outcome, elapsed);
}

// A unit's reason may carry what the agent chose (a refused path, a check's words): on GitHub it
// is one inert line, so no mention, keyword or link of the agent's goes live in the claim.
std::string inert_reason(const std::string& reason) {
  SanitizeOptions inert;
  inert.one_line = true;
  inert.max_chars = 500;
  return sanitize_text(reason, inert);
}

}  // namespace

void Watcher::recover() {
  auto all = store_->watch_list("issue/");
  if (!all) {
    log_.write("error", {{"error", "state database: " + all.error().message}});
    return;
  }
  int64_t now = clock_.now_seconds();
  for (auto& [key, j] : *all) {
    auto read = slot_from_json(j, "watch state " + key);
    if (!read) {  // said, and left as it is: the other issues go on
      log_.write("error", {{"error", "state database: " + read.error().message}});
      continue;
    }
    IssueSlot s = std::move(*read);
    Repo* r = repo_named(s.repo);
    if (!r || s.phase == "idle") continue;
    if (s.phase == "running" && s.child_pid > 0 &&
        process_start_time(s.child_pid) == s.child_start && !s.child_start.empty()) {
      // Still running (the last watch died, its unit did not): followed until it ends.
      children_.emplace(key, UnitChild::adopt(static_cast<pid_t>(s.child_pid), s.child_start));
      ++r->running;
      log_.write("adopted", with(where(s), {{"unit", s.unit_id}, {"pid", s.child_pid}}));
    } else if (s.phase == "running") {
      if (s.stop_reason.empty())
        s.stop_reason = "watch stopped (killed or crashed) while the unit was running";
      finish(*r, s, -1, now);
      continue;
    } else if (s.phase == "claiming") {
      // Claimed, never started: let go of the claim and queue it again.
      (void)release_claim(
          *r->forge, s.number, s.claim_comment, me_, s.claim_since,
          {"ended", "Released: watch stopped before the unit started.", {kRunningLabel}, {}});
      s.phase = "queued";
      s.requeued = true;
      s.ended_claim = s.claim_comment;  // replaced by the next claim
      s.claim_note.clear();
      s.claim_comment = 0;
    } else if (s.phase == "dispatched") {
      ++r->running;  // followed on GitHub Actions until its run completes
    }
    slots_[key] = s;
  }
}

void Watcher::start_queued(int64_t now) {
  std::vector<IssueSlot*> queued;
  for (auto& [_, s] : slots_)
    if (s.phase == "queued") queued.push_back(&s);
  std::sort(queued.begin(), queued.end(), [](auto* a, auto* b) {
    return a->queued_at != b->queued_at ? a->queued_at < b->queued_at : a->number < b->number;
  });
  for (IssueSlot* s : queued) {
    if (static_cast<int>(children_.size()) >= cfg_.watch.max_units) return;
    Repo* r = repo_named(s->repo);
    if (!r || r->running >= r->watch.max_units || !window_open(r->watch.window, now) ||
        now < s->not_before)
      continue;
    start_one(*r, *s, now);
  }
}

void Watcher::keep_attempt(IssueSlot& slot, int64_t now) {
  // Kept before the post: a claim whose id this watch never learns is known as its own by the
  // next attempt.
  slot.attempt_host = me_.host;
  slot.attempt_pid = me_.pid;
  slot.attempt_since = now;
  keep(slot);
}

void Watcher::claim_failed(IssueSlot& slot, int64_t now, const Error& e) {
  // Stays queued, tried again after a poll interval: a forge that refuses is not hammered.
  slot.not_before = now + cfg_.watch.poll_seconds;
  keep(slot);
  log_.write("claim_failed",
             with(where(slot), {{"error", e.message}, {"retry_in", cfg_.watch.poll_seconds}}));
}

void Watcher::start_one(Repo& r, IssueSlot& slot, int64_t now) {
  if (slot.pull) return start_pull(r, slot, now);  // a follow-up's claim: watcher_pulls.cc
  OwnClaims own{slot.ended_claim, {slot.attempt_host, slot.attempt_pid}, slot.attempt_since};
  // What the ended claim said goes on in the new one (the ended one is deleted).
  std::string earlier = slot.ended_claim > 0 ? slot.claim_note : "";
  auto result = claim_issue(*r.forge, slot.number, me_, cfg_.watch.claim_ttl, now,
                            slot.requeued ? 0 : slot.trigger_at, trusted(r, now), own,
                            [&] { keep_attempt(slot, now); });
  if (!result) {
    claim_failed(slot, now, result.error());
    return;
  }
  // Decided: what this watcher had left on the issue is gone or taken up again.
  slot.ended_claim = 0;
  slot.attempt_host.clear();
  slot.attempt_pid = slot.attempt_since = 0;
  if (!result->left.empty())
    log_.write("error", with(where(slot), {{"error", "claims of this watcher left on the issue: " +
                                                         result->left}}));
  if (!result->won) {
    log_.write("yield", with(where(slot), {{"winner_host", result->winner.host},
                                           {"winner_comment", result->winner.comment_id},
                                           {"posted", result->comment_id != 0}}));
    slot.phase = "idle";
    slot.claim_note.clear();
    return keep(slot);
  }
  slot.phase = "claiming";
  slot.claim_comment = result->comment_id;
  slot.claim_since = result->since;
  slot.claim_touched = now;
  slot.claim_note = result->note.empty() || earlier.empty() ? result->note + earlier
                                                            : result->note + "\n\n" + earlier;
  slot.unit_id.clear();
  slot.phases_logged = 0;
  slot.stop_reason.clear();
  keep(slot);
  log_.write("claim", with(where(slot), {{"comment", slot.claim_comment},
                                         {"note", result->note},
                                         {"resumed", result->resumed}}));
  if (r.watch.on_actions) return dispatch(r, slot, now);
  std::string log;
  auto child = spawn_unit({"run", "--issue", fmt::format("{}#{}", slot.repo, slot.number),
                           "--no-progress-comment", "--json"},
                          fmt::format("{}-{}", slot.repo, slot.number), now, log);
  if (!child) {
    log_.write("error", with(where(slot), {{"error", child.error().message}}));
    finish(r, slot, 127, now);
    return;
  }
  take_child(r, slot, std::move(*child));
  keep(slot);
  log_.write("unit_spawned", with(where(slot), {{"pid", slot.child_pid}, {"log", log}}));
}

Result<UnitChild> Watcher::spawn_unit(const std::vector<std::string>& args, const std::string& name,
                                      int64_t now, std::string& log) {
  std::string logs = state_dir_of(cfg_) + "/watch";
  (void)make_dirs(logs, 0700);
  log = fmt::format("{}/{}-{}.log", logs, name, now);
  std::vector<std::string> argv = {opt_.self_exe};
  if (!cfg_.file.empty()) argv.insert(argv.end(), {"--config", cfg_.file});
  argv.insert(argv.end(), args.begin(), args.end());
  return UnitChild::spawn(argv, log);
}

void Watcher::take_child(Repo& r, IssueSlot& slot, UnitChild child) {
  slot.phase = "running";
  slot.child_pid = child.pid();
  slot.child_start = child.start_time();
  ++slot.attempts;
  std::string key = slot_key(slot);
  children_.erase(key);
  children_.emplace(key, std::move(child));
  ++r.running;
}

void Watcher::watch_running(int64_t now) {
  std::vector<std::string> ended;
  for (auto& [key, child] : children_) {
    IssueSlot& slot = slots_[key];
    Repo* r = repo_named(slot.repo);
    if (!r) continue;
    if (slot.unit_id.empty()) {
      auto u = store_->by_runner(child.pid());
      if (u && *u && (**u).runner_start == child.start_time()) {
        slot.unit_id = (**u).id;
        keep(slot);
        log_.write("unit_started", with(where(slot), {{"unit", slot.unit_id}}));
        // The claim is the unit's progress comment (the unit posts none of its own); a
        // follow-up posts its own, and its claim (not edited here) keeps the heartbeat below.
        if (!slot.pull) {
          (void)update_claim(*r->forge, slot.number, slot.claim_comment, me_, slot.claim_since,
                             claim_text(slot, started_text(**u)));
          slot.claim_touched = now;
        }
      }
    }
    if (!slot.unit_id.empty()) {
      auto u = store_->get(slot.unit_id);
      if (u && u->phases.size() > slot.phases_logged) {
        for (size_t i = slot.phases_logged; i < u->phases.size(); ++i)
          log_.write("phase_ended", with(where(slot), {{"unit", slot.unit_id},
                                                       {"phase", u->phases[i].name},
                                                       {"outcome", u->phases[i].outcome}}));
        slot.phases_logged = u->phases.size();
        // The claim's heartbeat: a claim edited as its unit goes is never stale.
        if (!slot.pull) {
          (void)update_claim(*r->forge, slot.number, slot.claim_comment, me_, slot.claim_since,
                             claim_text(slot, phase_text(*u, now - slot.claim_since)));
          slot.claim_touched = now;
        }
        keep(slot);
      }
    }
    if (now - slot.claim_touched > cfg_.watch.claim_ttl / 3 &&
        (!slot.pull || slot.claim_comment > 0)) {
      // A follow-up's claim (on the pull request, keyed by its batch) has the same heartbeat.
      std::unique_ptr<WatchForge> changes = slot.pull ? r->forge->changes() : nullptr;
      Claimant me = me_;
      if (slot.pull) me.key = slot.claim_key;
      (void)update_claim(slot.pull ? *changes : *r->forge, slot.number, slot.claim_comment, me,
                         slot.claim_since,
                         claim_text(slot, fmt::format("Status: unit `{}` running (alive at {}).",
                                                      slot.unit_id, iso_utc(now))));
      slot.claim_touched = now;
      keep(slot);
    }
    if (slot.stop_reason.empty() && !window_open(r->watch.window, now)) {
      slot.stop_reason = "window ended";
      keep(slot);
      log_.write("stopping_unit",
                 with(where(slot), {{"unit", slot.unit_id}, {"reason", slot.stop_reason}}));
      child.terminate();
    }
    if (auto status = child.reap()) {
      finish(*r, slot, *status, now);
      ended.push_back(key);
    }
  }
  for (const auto& key : ended) children_.erase(key);
}

void Watcher::stop_all(const std::string& reason) {
  interrupted_units_ = true;
  for (auto& [key, child] : children_) {
    IssueSlot& slot = slots_[key];
    if (slot.stop_reason.empty()) slot.stop_reason = reason;
    keep(slot);
    log_.write("stopping_unit", with(where(slot), {{"unit", slot.unit_id}, {"reason", reason}}));
    child.terminate();
  }
}

std::optional<UnitRecord> Watcher::ended_unit(const IssueSlot& slot) {
  std::optional<UnitRecord> unit;
  if (!slot.unit_id.empty()) {
    if (auto u = store_->get(slot.unit_id)) unit = *u;
  } else if (slot.child_pid > 0) {
    if (auto u = store_->by_runner(slot.child_pid);
        u && *u && (**u).runner_start == slot.child_start)
      unit = **u;
  }
  if (unit && unit->state == UnitState::running) {
    // Its runner is gone (checked by the caller): the existing recovery's words.
    (void)store_->mark_orphans_interrupted();
    if (auto u = store_->get(unit->id)) unit = *u;
  }
  // What watch stopped, it records why (the run only knows it was told to stop).
  if (unit && unit->state == UnitState::interrupted && !slot.stop_reason.empty()) {
    unit->reason = slot.stop_reason;
    (void)store_->save(*unit);
  }
  return unit;
}

void Watcher::finish(Repo& r, IssueSlot& slot, int exit_status, int64_t now) {
  if (slot.pull) return finish_pull(r, slot, exit_status, now);
  --r.running;
  r.running = std::max(r.running, 0);
  std::optional<UnitRecord> unit = ended_unit(slot);
  std::string id = unit ? unit->id : "";
  std::string label = r.watch.label;
  ClaimEnd end;
  end.remove_labels = {kRunningLabel};
  bool window = slot.stop_reason == "window ended";
  bool shutdown = slot.stop_reason == "watch stopped";
  if (unit && unit->state == UnitState::done) {
    end.text = unit->pull_request.empty()
                   ? fmt::format("Done: unit `{}` ended with nothing to publish.", id)
                   : fmt::format("Done: unit `{}`, draft {} {}", id, r.forge->change_name(),
                                 unit->pull_request);
    end.remove_labels.push_back(label);
    end.add_labels = {kDoneLabel};
    slot.phase = "idle";
    if (!unit->pull_request.empty())
      log_.write("published",
                 with(where(slot), {{"unit", id}, {"pull_request", unit->pull_request}}));
  } else if (unit && unit->state == UnitState::skipped) {
    // The repository's when: found nothing to do: said on the issue, released, not a failure.
    end.text =
        fmt::format("Skipped: unit `{}` found nothing to do: {}", id, inert_reason(unit->reason));
    end.remove_labels.push_back(label);
    slot.phase = "idle";
    slot.attempts = std::max(slot.attempts - 1, 0);
    log_.write("skipped", with(where(slot), {{"unit", id}, {"reason", unit->reason}}));
  } else if (window || shutdown) {
    end.text = fmt::format("Stopped: {} (unit `{}` interrupted); released, it runs again {}.",
                           window ? "the window ended" : "watch was shut down", id,
                           window ? "in the next window" : "when watch starts again");
    slot.phase = "queued";
    --slot.attempts;  // not the unit's failure
    slot.attempts = std::max(slot.attempts, 0);
  } else {
    std::string what =
        unit ? fmt::format("{} ({})", to_string(unit->state), inert_reason(unit->reason))
             : fmt::format("the unit did not start (exit {}; see the watch log)", exit_status);
    if (!slot.stop_reason.empty() && unit) what = fmt::format("interrupted ({})", slot.stop_reason);
    bool retry = slot.attempts <= r.watch.on_failure.retry;
    end.text = retry ? fmt::format("Failed: {}; trying again ({} of {}).", what, slot.attempts,
                                   r.watch.on_failure.retry)
                     : fmt::format("Failed: unit `{}` {}.", id, what);
    if (!retry) {
      end.remove_labels.push_back(label);
      end.add_labels = {r.watch.on_failure.label};
    }
    slot.phase = retry ? "queued" : "idle";
  }
  std::string said = end.text;
  end.text = claim_text(slot, end.text);
  auto released =
      release_claim(*r.forge, slot.number, slot.claim_comment, me_, slot.claim_since, end);
  log_.write("released", with(where(slot), {{"unit", id},
                                            {"state", unit ? to_string(unit->state) : "none"},
                                            {"text", end.text},
                                            {"requeued", slot.phase == "queued"},
                                            {"error", released ? "" : released.error().message}}));
  // The labels watch removed are events by awaywork's own login; they never trigger.
  // Queued again, the issue's next claim replaces this one and says what it said.
  slot.ended_claim = slot.phase == "queued" ? slot.claim_comment : 0;
  slot.claim_note = slot.phase == "queued" ? "Earlier: " + said : "";
  slot.claim_comment = 0;
  slot.child_pid = 0;
  slot.child_start.clear();
  slot.stop_reason.clear();
  slot.unit_id.clear();
  slot.requeued = slot.phase == "queued";
  if (slot.phase == "queued") slot.queued_at = now;
  keep(slot);
}

}  // namespace aw
