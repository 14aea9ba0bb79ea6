// Per-phase cost of container isolation, in one run:
//   none    : the phase's command (`true`) forked and exec'd directly, as isolation none does;
//   engine  : the engine's own `docker run --rm IMAGE true` (the floor no launcher can beat);
//   awaywork: make_container_launcher (all of awaywork's flags) + wait + remove_container, i.e.
//             everything awaywork does per phase in a container (with its seccomp profile);
//   bridge  : network allowlist's per-unit cost: the egress bridge container started (until it
//             listens) and removed, beside a phase joining its namespace; and the same bridge
//             relaying two pairs (egress 3128 + inference 4180, as an allowlist unit with
//             `inference:` has).
// Prints medians and awaywork / engine; the bound is <= 1.10.
// Usage: container_bench [RUNS=15] [IMAGE=awaywork-test:bookworm] [ENGINE=docker]
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "isolate/container/container_launcher.h"
#include "isolate/container/egress_bridge.h"
#include "isolate/container/engine.h"
#include "isolate/container/seccomp_profile.h"
#include "isolate/static_program.h"
#include "proc/capture.h"
#include "proxy/egress_proxy.h"

using namespace aw;
using clk = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double time_ms(const std::function<bool()>& f) {
  auto t0 = clk::now();
  if (!f()) {
    std::fprintf(stderr, "container_bench: a run failed\n");
    std::exit(1);
  }
  return std::chrono::duration<double, std::milli>(clk::now() - t0).count();
}

bool wait_ok(pid_t pid) {
  int st = 0;
  return pid > 0 && ::waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 15;
  std::string image = argc > 2 ? argv[2] : "awaywork-test:bookworm";
  std::string which = argc > 3 ? argv[3] : "docker";
  auto engine = find_engine(which);
  if (!engine) {
    std::fprintf(stderr, "container_bench: %s\n", engine.error().message.c_str());
    return 1;
  }
  if (auto ok = image_present(*engine, image); !ok) {
    std::fprintf(stderr, "container_bench: %s (scripts/test-image)\n", ok.error().message.c_str());
    return 1;
  }
  char tmpl[] = "/tmp/aw-container-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  std::string clone = root + "/work";
  ::mkdir(clone.c_str(), 0755);
  auto home = prepare_home(clone);
  if (!home) return 1;

  ContainerPlan plan;
  plan.engine = *engine;
  plan.image = image;
  plan.clone = clone;
  plan.uid = ::getuid();
  plan.gid = ::getgid();
  plan.unit = "bench";
  plan.placeholders = {{"AWAYWORK_UNIT", "bench"}, {"AWAYWORK_PHASE", "agent"}};
  plan.secret_names = {"AW_BENCH_TOKEN"};
  if (write_seccomp_profile(root + "/seccomp.json")) plan.seccomp_profile = root + "/seccomp.json";
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  ExecRequest req;
  req.argv = {"true"};
  req.env = {"AW_BENCH_TOKEN=fake-bench-value"};
  req.cwd = clone;
  req.stdin_fd = req.stdout_fd = req.stderr_fd = null;

  // The same client argv awaywork builds, run bare: what awaywork itself adds is aw - same.
  auto same_argv = container_run_argv(plan, "aw-bench-same", req);
  if (!same_argv) return 1;
  std::vector<double> none, eng, same, aw;
  int n = 0;
  for (int i = 0; i < runs; ++i) {  // interleaved, so drift hits all three alike
    none.push_back(time_ms([&] {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
        ::execl("/bin/true", "true", nullptr);
        ::_exit(127);
      }
      return wait_ok(pid);
    }));
    eng.push_back(time_ms([&] {
      CaptureSpec s;
      s.argv = {engine->client, "run", "--rm"};
      if (engine->kind == EngineKind::podman)  // its default ulimits do not fit this machine
        for (const auto& u : fitting_ulimits()) s.argv.insert(s.argv.end(), {"--ulimit", u});
      s.argv.insert(s.argv.end(), {image, "true"});
      s.env = engine->client_env;
      auto c = capture(s);
      return c && c->exit_code == 0;
    }));
    same.push_back(time_ms([&] {
      CaptureSpec s;
      s.argv = *same_argv;
      s.argv[4] = "--name=aw-bench-same-" + std::to_string(::getpid()) + "-" + std::to_string(i);
      s.env = container_client_env(plan, req);
      auto c = capture(s);
      return c && c->exit_code == 0;
    }));
    aw.push_back(time_ms([&] {
      std::string name = "aw-bench-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
      auto launcher = make_container_launcher(plan, name);
      if (!launcher) return false;
      auto pid = (*launcher)(req);
      bool ok = pid && wait_ok(*pid);
      return remove_container(*engine, name) && ok;
    }));
  }
  double mn = median(none), me = median(eng), ms = median(same), ma = median(aw);
  std::printf("container_bench: %s %s, image %s, %d runs each, medians:\n", to_string(engine->kind),
              engine->version.c_str(), image.c_str(), runs);
  std::printf("  isolation none (fork/exec true)          %8.1f ms\n", mn);
  std::printf("  engine alone (%s run --rm IMAGE true) %8.1f ms\n", to_string(engine->kind), me);
  std::printf("  engine alone with awaywork's flags        %8.1f ms\n", ms);
  std::printf("  awaywork container phase (launch+remove) %8.1f ms\n", ma);
  std::printf("  per-phase overhead vs none: engine %+.1f ms, awaywork %+.1f ms\n", me - mn,
              ma - mn);
  std::printf("  awaywork / engine = %.3f (bound <= 1.10): %s\n", ma / me,
              ma / me <= 1.10 ? "within" : "OVER");
  std::printf("  awaywork / engine with the same flags = %.3f (awaywork's own work: %+.1f ms)\n",
              ma / ms, ma - ms);
  // network allowlist: per unit, the bridge; per phase, joining its namespace.
  EgressProxyOptions po;
  po.socket_path = root + "/egress.sock";
  auto proxy = EgressProxy::start(po);
  auto program = static_program("aw_bridge_static");
  if (proxy && program) {
    std::vector<double> bridge, bridge2, joined;
    for (int i = 0; i < std::max(3, runs / 3); ++i) {
      BridgePlan b{*engine,  image,    "aw-bench-bridge-" + std::to_string(::getpid()),
                   "bench",  *program, {{3128, (*proxy)->socket_path()}},
                   plan.uid, plan.gid, plan.seccomp_profile};
      bridge.push_back(time_ms([&] { return static_cast<bool>(start_bridge(b)); }));
      ContainerPlan jp = plan;
      jp.network = Network::allowlist;
      jp.proxy_network = b.name;
      joined.push_back(time_ms([&] {
        std::string name = "aw-bench-j-" + std::to_string(::getpid()) + "-" + std::to_string(i);
        auto launcher = make_container_launcher(jp, name);
        if (!launcher) return false;
        auto pid = (*launcher)(req);
        bool ok = pid && wait_ok(*pid);
        return remove_container(*engine, name) && ok;
      }));
      bridge.back() +=
          time_ms([&] { return static_cast<bool>(remove_container(*engine, b.name)); });
      b.pairs.push_back({4180, (*proxy)->socket_path()});
      bridge2.push_back(
          time_ms([&] { return start_bridge(b) && remove_container(*engine, b.name); }));
    }
    std::printf("  allowlist: bridge start+remove per unit  %8.1f ms\n", median(bridge));
    std::printf("  allowlist: phase joining the bridge       %8.1f ms\n", median(joined));
    std::printf("  bridge with 2 pairs: start+remove        %8.1f ms\n", median(bridge2));
  } else {
    std::fprintf(stderr, "container_bench: no allowlist figures (%s)\n",
                 proxy ? program.error().message.c_str() : proxy.error().message.c_str());
  }
  ::close(null);
  CaptureSpec rm;
  rm.argv = {"rm", "-rf", root};
  rm.env = {"PATH=/usr/bin:/bin"};
  (void)capture(rm);
  return 0;
}
