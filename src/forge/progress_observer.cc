#include "forge/progress_observer.h"

#include <fmt/format.h>

namespace aw {

namespace {

void note(UnitRecord& u, const Status& s, const char* when) {
  if (!s) u.notes.push_back(fmt::format("progress comment ({}): {}", when, s.error().message));
}

}  // namespace

void ProgressObserver::started(UnitRecord& u) {
  comment_.emplace(s_, issue_, u.id);
  note(u, comment_->start(u.agent, u.isolation, u.sandbox), "start");
  began_ = std::chrono::steady_clock::now();
}

void ProgressObserver::phase_started(UnitRecord& u, const std::string& phase) {
  if (!comment_) return;
  auto s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began_);
  note(u, comment_->phase(phase, s.count()), "phase");
}

void ProgressObserver::ended(UnitRecord& u, UnitState state, const std::string& reason) {
  if (!comment_) return;
  note(u, comment_->finish(progress_outcome(u.pull_request, to_string(state), reason)), "end");
}

}  // namespace aw
