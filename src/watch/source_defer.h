// A source plugin's calls while a unit holds the worker (issue 28, docs/plugins.md "Under
// isolation user"): under isolation user a call tied to no unit (watch's `tasks` poll, a task's
// `task_done`) takes the worker lock, and is refused while a unit of another process holds it.
// That is "not now", not the plugin's failure: watch says so once when a source begins deferring
// (`source_deferred`), asks again at the next poll, and keeps a task_done it could not make in the
// task's own row of the state database, made at a later poll (by this watch or the next one), so
// that no report is lost to a busy worker or a restart.
//
//   if (refused_for_a_unit) { if (s.defer.refused()) log("source_deferred"); }
//   else s.defer.through();
//   store.watch_put(key, with_pending_report(done_row, params));  // refused: kept
//   if (auto params = pending_report(row)) ...;                    // at a later poll
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace aw {

// One source's state: whether its calls are being deferred for the worker lock.
class SourceDeferral {
 public:
  // A call was refused because a unit holds the worker: true when this begins a deferral (the one
  // line to log), false while it goes on.
  bool refused() {
    bool first = !deferring_;
    deferring_ = true;
    return first;
  }
  // A call reached the plugin (whatever it answered): the next refusal begins a new deferral.
  void through() { deferring_ = false; }
  bool deferring() const { return deferring_; }

 private:
  bool deferring_ = false;
};

// The field of a done task's row that keeps its task_done params until they are made.
inline constexpr const char* kPendingReport = "pending_report";

// The task's done row keeping params (its task_done) for a later poll.
nlohmann::json with_pending_report(nlohmann::json row, const nlohmann::json& params);

// The task_done params a row keeps for a later poll; none when it keeps none, is not a done
// task's row, or what it keeps is not a params object (a row written by hand, an older watch).
std::optional<nlohmann::json> pending_report(const nlohmann::json& row);

// The row once its kept report was made (or failed for a reason other than the worker): done,
// keeping nothing.
nlohmann::json without_pending_report(nlohmann::json row);

}  // namespace aw
