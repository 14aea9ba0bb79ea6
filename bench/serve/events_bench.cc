// The cost of one GET /units/ID/events on a 50 MiB log's steps (issue 25), in-process, the same
// run: a plain command agent's every line is a step, ~455,000 of them for the big agent of
// tests/serve/world.py (a line of 115 bytes).
//   before: what the handler did per request until h/s45-events: read_events() of the whole
//           events.json, the last 2000 taken, the answer made (json_text);
//   after:  read_steps() of events.jsonl from its end: the first request of a server (every line
//           counted, none but the last 2000 parsed), a poll of the unchanged file, and a poll after
//           the running agent added 20 lines (only the new bytes counted);
// and the answer made from each, as the server sends it. A recorded events.json is answered from
// the server's cache while its size and mtime stay (a map lookup; not measured here).
// Run:  build/bench/serve/events_bench [STEPS]   (medians of 9; STEPS: kEventsMax + 1 unless
//       given, as many as an agent phase keeps: 20,000 and the line saying how many it dropped.
//       A larger events.json than a unit can write is refused by read_events' size cap)
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../common/bench_time.h"
#include "base/json_write.h"
#include "provider/events.h"
#include "unit/transcript_steps.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxSteps = 2000;  // as serve/api.cc
constexpr int kRuns = 9;

using aw::bench::median;

template <class F>
double ms_of(F&& f) {
  auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The big agent's line as a step.
aw::TranscriptEvent step(size_t i) {
  aw::TranscriptEvent e;
  e.text = fmt::format("line {:08} {:0100}", i + 1, 0);
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : aw::kEventsMax + 1;
  char tmpl[] = "/tmp/aw-events-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  std::string dir = tmpl;
  std::string old_path = dir + "/events.json", new_path = dir + "/events.jsonl";

  std::vector<aw::TranscriptEvent> all;
  all.reserve(n);
  for (size_t i = 0; i < n; ++i) all.push_back(step(i));
  if (!aw::write_events(old_path, all)) return 1;
  {
    std::ofstream f(new_path, std::ios::binary);
    for (size_t i = 0; i < n; ++i)
      f << aw::format_step(all[i], 1765000000000 + static_cast<int64_t>(i), i * 115);
  }
  std::printf("%zu steps: events.json %.1f MiB, events.jsonl %.1f MiB\n", n,
              std::filesystem::file_size(old_path) / 1048576.0,
              std::filesystem::file_size(new_path) / 1048576.0);

  std::vector<double> before, cold, warm, grown;
  size_t body_before = 0, body_after = 0;
  for (int run = 0; run < kRuns; ++run) {
    before.push_back(ms_of([&] {
      auto list = aw::read_events(old_path);
      if (!list) {
        std::fprintf(stderr, "events_bench: %s\n", list.error().message.c_str());
        std::exit(2);
      }
      size_t from = list->size() > kMaxSteps ? list->size() - kMaxSteps : 0;
      nlohmann::json out = nlohmann::json::array();
      for (size_t i = from; i < list->size(); ++i) out.push_back((*list)[i]);
      body_before =
          aw::json_text(
              {{"recorded", true}, {"events", out}, {"total", list->size()}, {"left_out", from}})
              .size();
    }));
    aw::StepsCount seen;
    auto answer = [&] {
      auto page = aw::read_steps(new_path, kMaxSteps, seen);
      if (!page) std::exit(3);
      body_after = aw::json_text({{"recorded", true},
                                  {"events", page->events},
                                  {"total", page->total},
                                  {"left_out", page->left_out}})
                       .size();
    };
    cold.push_back(ms_of(answer));
    warm.push_back(ms_of(answer));
    {
      std::ofstream f(new_path, std::ios::binary | std::ios::app);
      for (size_t i = 0; i < 20; ++i) f << aw::format_step(step(n + i), 1765000000000, 0);
    }
    grown.push_back(ms_of(answer));
  }
  std::printf("GET /events, median of %d (answer %zu bytes before, %zu after):\n", kRuns,
              body_before, body_after);
  std::printf("  before (events.json parsed whole):        %8.1f ms\n", median(before));
  std::printf("  after, a server's first request (counted): %8.1f ms  ratio %.3f\n", median(cold),
              median(cold) / median(before));
  std::printf("  after, a poll of the unchanged file:       %8.1f ms  ratio %.3f\n", median(warm),
              median(warm) / median(before));
  std::printf("  after, a poll after 20 more steps:         %8.1f ms  ratio %.3f\n", median(grown),
              median(grown) / median(before));
  std::filesystem::remove_all(dir);
  return 0;
}
