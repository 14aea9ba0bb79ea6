// The progress post's words and steps both forges share (progress_post.h).
#include "forge/progress_post.h"

#include <fmt/format.h>

#include "check/sanitize.h"
#include "forge/publish.h"

namespace aw {

std::string progress_head(const std::string& unit_id, const std::string& agent,
                          const std::string& isolation, const std::string& sandbox_note) {
  return fmt::format(
      "awaywork is working on this issue: unit `{}`, agent `{}`, isolation `{}`, sandbox `{}`.",
      unit_id, agent, isolation, published_sandbox(sandbox_note));
}

std::string progress_phase_status(const std::string& name, int64_t elapsed_seconds) {
  return fmt::format("Status: phase `{}` (after {} s).", name, elapsed_seconds);
}

std::string progress_ended(const std::string& state, const std::string& reason) {
  return fmt::format("Ended: {}{}", state,
                     reason.empty() ? "" : " (" + sanitize_text(reason, {}, 2000) + ")");
}

void ProgressPost::resume(const std::string& agent, const std::string& isolation,
                          const std::string& sandbox_note) {
  head_ = progress_head(unit_id_, agent, isolation, sandbox_note);
}

Status ProgressPost::start(const std::string& agent, const std::string& isolation,
                           const std::string& sandbox_note) {
  resume(agent, isolation, sandbox_note);
  return write("Status: starting.");
}

Status ProgressPost::phase(const std::string& name, int64_t elapsed_seconds) {
  return write(progress_phase_status(name, elapsed_seconds));
}

Status ProgressPost::finish(const std::string& outcome) {
  return write(outcome);
}

void ProgressPostObserver::note(UnitRecord& u, const Status& s, const char* when) const {
  if (!s) u.notes.push_back(fmt::format("{} ({}): {}", what_, when, s.error().message));
}

void ProgressPostObserver::started(UnitRecord& u) {
  post_ = open(u.id);
  note(u, post_->start(u.agent, u.isolation, u.sandbox), "start");
  began_ = std::chrono::steady_clock::now();
}

void ProgressPostObserver::phase_started(UnitRecord& u, const std::string& phase) {
  if (!post_) return;
  auto s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - began_);
  note(u, post_->phase(phase, s.count()), "phase");
}

void ProgressPostObserver::ended(UnitRecord& u, UnitState state, const std::string& reason) {
  if (!post_) return;
  note(u, post_->finish(outcome(u.pull_request, to_string(state), reason)), "end");
}

}  // namespace aw
