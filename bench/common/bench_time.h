// For benchmarks: wall-clock time since a moment, the median of the rounds, and cases measured
// round-robin so that load from other processes on the machine spreads evenly over them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace aw::bench {

using Stopwatch = std::chrono::steady_clock;

inline double seconds_since(Stopwatch::time_point t) {
  return std::chrono::duration<double>(Stopwatch::now() - t).count();
}
inline double ms_since(Stopwatch::time_point t) {
  return std::chrono::duration<double, std::milli>(Stopwatch::now() - t).count();
}

// The upper median of an even count, as the benchmarks have always printed it; 0 for none.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One thing measured: once() runs it (false: a failure), ms collects each run's milliseconds.
struct Case {
  std::string name;
  std::function<bool()> once;
  std::vector<double> ms;
};

// Round-robin over the cases so that load from other processes on the machine spreads evenly.
// A failed run ends the benchmark (its figures would be wrong).
inline void measure(std::vector<Case>& cases, int runs) {
  for (int i = 0; i < runs; ++i)
    for (auto& c : cases) {
      auto a = Stopwatch::now();
      if (!c.once()) {
        std::fprintf(stderr, "%s: run failed\n", c.name.c_str());
        std::exit(1);
      }
      c.ms.push_back(std::chrono::duration<double, std::milli>(Stopwatch::now() - a).count());
    }
}

}  // namespace aw::bench
