#include "cli/progress.h"

#include <fmt/format.h>

#include <cstdio>

namespace aw {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

void Progress::started(const UnitRecord& u) {
  unit_ = u.id;
  unit_start_ = std::chrono::steady_clock::now();
  if (!tty_) fmt::print(stderr, "unit {} started on {} (agent {})\n", u.id, u.repo, u.agent);
}

void Progress::phase(const std::string& name) {
  phase_ = name;
  phase_start_ = std::chrono::steady_clock::now();
  if (!tty_) fmt::print(stderr, "unit {}: {} phase running\n", unit_, name);
  tick();
}

void Progress::phase_done(const PhaseRecord& p) {
  clear();
  fmt::print(stderr, "unit {}: {} phase: {} in {:.1f} s\n", unit_, p.name, p.outcome,
             p.duration_ms / 1000.0);
}

void Progress::tick() {
  if (!tty_ || phase_.empty()) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  static constexpr const char* kSpin[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  fmt::print(stderr, "\r\033[K{} {}  {} phase {:.1f} s  (unit {:.1f} s)", kSpin[frame_++ % 10],
             unit_, phase_, seconds_since(phase_start_), seconds_since(unit_start_));
  std::fflush(stderr);
}

void Progress::clear() {
  if (tty_) fmt::print(stderr, "\r\033[K");
}

}  // namespace aw
