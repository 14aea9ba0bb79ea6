// Progress of a running unit on stderr: one live status line on a terminal, plain lines when not.
#pragma once

#include <chrono>
#include <string>

#include "record/record.h"

namespace aw {

class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty) {}
  void started(const UnitRecord& u);
  void phase(const std::string& name);
  void phase_done(const PhaseRecord& p);
  void tick();  // redraws the live line (terminal only), at most every 100 ms
  void clear();

 private:
  bool tty_;
  std::string unit_, phase_;
  std::chrono::steady_clock::time_point unit_start_, phase_start_, last_draw_;
  int frame_ = 0;
};

}  // namespace aw
