// Figures for the output check:
//   BM_CheckPatch1MiB   parse + check a 1 MiB patch (target: median <= 5 ms)
//   BM_Redact256MiB     redact a 256 MiB transcript-like stream, 50 literal secrets plus the
//                       patterns, fed in 1 MiB chunks; memcpy of the same buffer is timed in the
//                       same iteration: GBps, memcpy_GBps, ratio_vs_memcpy (target: >= 1 GB/s)
//   BM_Redact256MiB_NearMisses   the same on a worst-case soup of secret-like prefixes
// Run: build/bench/check/check_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "check/check.h"
#include "check/redact.h"

namespace aw {
namespace {

std::string hex40(unsigned n) {
  char b[41];
  std::snprintf(b, sizeof b, "%040x", n + 1);
  return b;
}

// A patch shaped like git's: modified files with several hunks each, plus new files.
std::string make_patch(size_t target) {
  std::string p;
  for (unsigned f = 0; p.size() < target; ++f) {
    std::string path = "src/module" + std::to_string(f) + "/file.c";
    if (f % 4 == 3) {
      p += "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\nindex " +
           hex40(0).replace(0, 40, 40, '0') + ".." + hex40(f) + "\n--- /dev/null\n+++ b/" + path +
           "\n@@ -0,0 +1,200 @@\n";
      for (int i = 0; i < 200; ++i)
        p += "+static int value_" + std::to_string(i) + " = compute(" + std::to_string(i * f) +
             ");\n";
      continue;
    }
    p += "diff --git a/" + path + " b/" + path + "\nindex " + hex40(f) + ".." + hex40(f + 100000) +
         " 100644\n--- a/" + path + "\n+++ b/" + path + "\n";
    for (int h = 0; h < 20; ++h) {
      int start = 1 + h * 40;
      p += "@@ -" + std::to_string(start) + ",7 +" + std::to_string(start) + ",8 @@ int function_" +
           std::to_string(h) + "(void)\n";
      for (int i = 0; i < 3; ++i)
        p += "   context line " + std::to_string(start + i) + " of the file;\n";
      p += "-  old_call(" + std::to_string(h) + ");\n+  new_call(" + std::to_string(h) +
           ");\n+  extra_call();\n";
      for (int i = 0; i < 3; ++i) p += "   trailing context " + std::to_string(i) + ";\n";
    }
  }
  return p;
}

void BM_CheckPatch1MiB(benchmark::State& state) {
  std::string patch = make_patch(1u << 20);
  Bounds b;
  b.max_patch_bytes = patch.size();
  b.max_patch_files = 10000;
  Verdict v = check_outputs(patch, std::nullopt, b, {});
  if (!v.accepted) {
    state.SkipWithError(render_text(v).substr(0, 300).c_str());
    return;
  }
  for (auto _ : state) {
    Verdict r = check_outputs(patch, std::nullopt, b, {});
    benchmark::DoNotOptimize(r.accepted);
  }
  state.SetBytesProcessed(int64_t(state.iterations() * patch.size()));
  state.counters["patch_bytes"] = double(patch.size());
  state.counters["files"] = double(v.stats.files);
}
BENCHMARK(BM_CheckPatch1MiB)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(10)
    ->ReportAggregatesOnly(true);

std::vector<std::string> fake_literals() {
  std::vector<std::string> out;
  std::mt19937 rng(7);
  const char* cls = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (int i = 0; i < 50; ++i) {
    std::string s;
    for (int k = 0; k < 32; ++k) s += cls[rng() % 62];
    out.push_back(s);
  }
  return out;
}

// Near-miss soup: every fourth word starts like a secret (sk, ey, gi, AK, --): a worst case
// for the prefilter, kept to show how the figure degrades.
std::string near_miss_stream(size_t size) {
  static const char* words[] = {"the",      "agent",  "read",  "file",   "src/main.c", "{\"type\":",
                                "\"text\"", "error:", "build", "passed", "ok",         "function",
                                "return",   "0x7f",   "skip",  "token",  "key",        "github",
                                "install",  "--",     "AKI",   "eyJ"};
  std::mt19937 rng(1);
  std::string s;
  s.reserve(size + 64);
  size_t n = 0;
  while (s.size() < size) {
    s += words[rng() % (sizeof words / sizeof *words)];
    s += (++n % 12 == 0) ? '\n' : ' ';
  }
  s.resize(size);
  return s;
}

// Transcript-like text: the repository's own sources and docs as JSON lines (what an agent's
// transcript mostly is: code, prose and JSON), repeated to size.
std::string transcript_stream(size_t size) {
  std::string text;
  for (const char* dir : {"src", "tests/check", "bench"}) {
    for (auto& e :
         std::filesystem::recursive_directory_iterator(std::string(AW_SOURCE_DIR) + "/" + dir)) {
      if (!e.is_regular_file()) continue;
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      std::string line;
      for (std::istringstream in(ss.str()); std::getline(in, line);) {
        nlohmann::json j = {{"type", "text"}, {"text", line}};
        text += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      }
    }
  }
  std::string s;
  s.reserve(size + text.size());
  while (s.size() < size) s += text;
  s.resize(size);
  return s;
}

double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Times on the thread's CPU clock: the build machine is shared, and wall time would measure
// the neighbours. memcpy of the same buffer is timed in the same iteration for the ratio.
void redact_bench(benchmark::State& state, std::string in) {
  const size_t size = in.size(), chunk = 1u << 20;
  auto literals = fake_literals();
  // Plant each literal and a token shape once per 4 MiB so matches happen along the way.
  for (size_t at = 1000, k = 0; at + 200 < size; at += 4u << 20, ++k) {
    std::string plant =
        " " + literals[k % literals.size()] + " ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ";
    in.replace(at, plant.size(), plant);
  }
  std::string copy(size, '\0');
  double memcpy_s = 0, redact_s = 0;
  size_t redactions = 0;
  for (auto _ : state) {
    double t0 = thread_cpu();
    std::memcpy(copy.data(), in.data(), size);
    benchmark::ClobberMemory();
    double t1 = thread_cpu();
    Redactor r(literals);
    size_t out = 0;
    std::string o;
    for (size_t i = 0; i < size; i += chunk) {
      o = r.feed(std::string_view(in).substr(i, chunk));
      out += o.size();
      for (size_t p = o.find("[REDACTED]"); p != std::string::npos; p = o.find("[REDACTED]", p + 1))
        ++redactions;
    }
    out += r.finish().size();
    benchmark::DoNotOptimize(out);
    double t2 = thread_cpu();
    memcpy_s += t1 - t0;
    redact_s += t2 - t1;
    state.SetIterationTime(t2 - t1);
  }
  double bytes = double(size) * double(state.iterations());
  state.counters["GBps"] = bytes / redact_s / 1e9;
  state.counters["memcpy_GBps"] = bytes / memcpy_s / 1e9;
  state.counters["ratio_vs_memcpy"] = memcpy_s / redact_s;
  state.counters["redactions"] = double(redactions) / double(state.iterations());
}

void BM_Redact256MiB(benchmark::State& state) {
  redact_bench(state, transcript_stream(256u << 20));
}
BENCHMARK(BM_Redact256MiB)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(3)
    ->Repetitions(3);

void BM_Redact256MiB_NearMisses(benchmark::State& state) {
  redact_bench(state, near_miss_stream(256u << 20));
}
BENCHMARK(BM_Redact256MiB_NearMisses)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(3)
    ->Repetitions(3);

}  // namespace
}  // namespace aw

BENCHMARK_MAIN();
