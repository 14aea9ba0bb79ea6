// What run_phase costs over a bare spawn: run_phase(/bin/true) (keeper, cgroup, launcher, cleanup
// proof) against posix_spawn + waitpid of /bin/true, measured in the same run.
//   build/bench/proc/bench_proc --benchmark_repetitions=10 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>
#include <spawn.h>
#include <sys/wait.h>

#include "proc/runner.h"
#include "proc/runner_knobs.h"

extern char** environ;

namespace aw {
namespace {

void BM_PosixSpawnTrue(benchmark::State& state) {
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  for (auto _ : state) {
    pid_t pid;
    if (::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0) {
      state.SkipWithError("posix_spawn failed");
      break;
    }
    int st;
    ::waitpid(pid, &st, 0);
  }
}
BENCHMARK(BM_PosixSpawnTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

void run_true(benchmark::State& state, CgroupMode mode) {
  PhaseSpec spec;
  spec.name = "bench";
  spec.argv = {"/bin/true"};
  spec.env = build_env(environ, {}, {});
  spec.on_output = [](Stream, std::string_view) {};
  for (auto _ : state) {
    auto r = run_phase_with(spec, RunnerKnobs{mode});
    if (!r || r->exit_code != 0) {
      state.SkipWithError("run_phase failed");
      break;
    }
  }
}

void BM_RunPhaseTrue(benchmark::State& state) {
  run_true(state, CgroupMode::automatic);
}
BENCHMARK(BM_RunPhaseTrue)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RunPhaseTrueCgroupV1(benchmark::State& state) {
  run_true(state, CgroupMode::v1_only);
}
BENCHMARK(BM_RunPhaseTrueCgroupV1)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_RunPhaseTrueSubreaperOnly(benchmark::State& state) {
  run_true(state, CgroupMode::none);
}
BENCHMARK(BM_RunPhaseTrueSubreaperOnly)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace aw
