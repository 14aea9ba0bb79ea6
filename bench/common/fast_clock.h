// For the watch benchmarks: a compressed clock for the watcher. sleep() moves time on at once, so
// that minutes of polling take no real time; the first sleep marks the end of the first pass
// (every repository or project polled once).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "forge/http.h"  // Clock

namespace aw::bench {

class FastClock : public Clock {
 public:
  explicit FastClock(int64_t start_ms) : now_(start_ms) {}
  int64_t now_seconds() override { return now_ / 1000; }
  void sleep(std::chrono::milliseconds d) override {
    if (!first_pass_done) {
      first_pass_done = true;
      if (on_first_pass) on_first_pass();
    }
    now_ += d.count();
  }
  int64_t now_ms() const { return now_; }
  bool first_pass_done = false;
  std::function<void()> on_first_pass;

 private:
  int64_t now_;  // ms
};

}  // namespace aw::bench
