// isolate_bench [RUNS]: median start-to-exit of /bin/true, in one run, for
//   bare      fork + execve + waitpid
//   sandbox   the sandbox launcher (network none: all namespaces, view, seccomp, landlock, limits)
//   sandbox-hostnet  the same without a network namespace
//   sandbox-unitnet  the same joining a UnitNetns kept for the unit (the recommended setup)
//   sandbox-nolimits a fresh network namespace but no cgroup v1 groups (an unprivileged owner)
//   sandbox-oldview  the same with the old view: the host's "/" read-only, hidden paths masked
//                    (also joining the unit netns: the view's own cost without netns noise)
//   bwrap     bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc true
//   bwrap-view bwrap building the same view as the sandbox: the system trees, the folder, a
//             private /tmp and /run, /proc, /dev, and the same root-only masks
// and the overhead (sandbox - bare) and ratios (sandbox / bwrap-view, sandbox / bwrap).
// AW_BENCH_BREAKDOWN=1 adds one case per protection left out. Run as root for the limits and the
// unit namespace.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "../common/bench_time.h"
#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/view.h"

namespace {

using aw::bench::Case;
using aw::bench::measure;
using aw::bench::median;

bool spawn(const std::vector<const char*>& argv) {
  pid_t p = ::fork();
  if (p == 0) {
    ::execv(argv[0], const_cast<char**>(argv.data()));
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(p, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 200;
  char tmpl[] = "/var/tmp/aw-bench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  aw::SandboxPlan plan;
  plan.writable = {dir};
  plan.hidden = {"/root/.ssh", "/root/.aws", "/root/.config/gh"};
  plan.apply_limits = ::geteuid() == 0;
  plan.cgroup_name = "bench-unit";  // one group per unit, as the lead configures it
  plan.root_only = aw::sandbox::root_only_files(::geteuid() == 0);
  if (std::getenv("AW_BENCH_NO_LIMITS")) plan.apply_limits = false;
  auto sandboxed = [&](const aw::SandboxPlan& p) {
    auto launch = aw::make_sandbox_launcher(p);
    return [launch, dir]() {
      aw::ExecRequest req;
      req.argv = {"/bin/true"};
      req.env = {"PATH=/usr/bin:/bin"};
      req.cwd = dir;
      auto pid = launch(req);
      if (!pid) {
        std::fprintf(stderr, "%s\n", pid.error().message.c_str());
        return false;
      }
      int st = 0;
      ::waitpid(*pid, &st, 0);
      return WIFEXITED(st) && WEXITSTATUS(st) == 0;
    };
  };
  auto unit_ns = aw::UnitNetns::create();  // root only; else the case is skipped
  aw::SandboxPlan unitnet = plan;
  if (unit_ns) unitnet.unit_netns_fd = unit_ns->fd();
  aw::SandboxPlan nolimits = plan;
  nolimits.apply_limits = false;
  aw::SandboxPlan hostnet = plan;
  hostnet.network = aw::Network::host;
  aw::SandboxPlan oldview = plan;
  oldview.disable_for_test = {"view"};
  aw::SandboxPlan oldview_unitnet = unitnet;
  oldview_unitnet.disable_for_test = {"view"};
  // bwrap's arguments for the same view (links recreated, masks as the sandbox makes them).
  std::vector<std::string> bw = {"/usr/bin/bwrap", "--unshare-all", "--die-with-parent"};
  for (const auto& t : plan.system) {
    char target[4096];
    ssize_t n = ::readlink(t.c_str(), target, sizeof target - 1);
    if (n > 0) {
      bw.insert(bw.end(), {"--symlink", std::string(target, size_t(n)), t});
    } else if (::access(t.c_str(), F_OK) == 0) {
      bw.insert(bw.end(), {"--ro-bind", t, t});
    }
  }
  bw.insert(bw.end(), {"--bind", dir, dir, "--tmpfs", "/tmp", "--tmpfs", "/run", "--proc", "/proc",
                       "--dev", "/dev"});
  for (const auto& r : plan.root_only) {
    struct stat st {};
    if (::lstat(r.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      bw.insert(bw.end(), {"--tmpfs", r});
    else
      bw.insert(bw.end(), {"--ro-bind", "/dev/null", r});
  }
  bw.insert(bw.end(), {"--remount-ro", "/", "true"});
  std::vector<const char*> bw_argv;
  for (const auto& a : bw) bw_argv.push_back(a.c_str());
  bw_argv.push_back(nullptr);
  std::vector<Case> cases;
  cases.push_back({"bare", [] { return spawn({"/bin/true", nullptr}); }, {}});
  cases.push_back({"sandbox", sandboxed(plan), {}});
  cases.push_back({"sandbox-hostnet", sandboxed(hostnet), {}});
  cases.push_back({"sandbox-unitnet", sandboxed(unitnet), {}});
  cases.push_back({"sandbox-nolimits", sandboxed(nolimits), {}});
  cases.push_back({"sandbox-oldview", sandboxed(oldview), {}});
  cases.push_back({"sandbox-oldview-unitnet", sandboxed(oldview_unitnet), {}});
  bool have_bwrap = ::access("/usr/bin/bwrap", X_OK) == 0;
  if (have_bwrap) cases.push_back({"bwrap-view", [&bw_argv] { return spawn(bw_argv); }, {}});
  if (have_bwrap)
    cases.push_back({"bwrap",
                     [] {
                       return spawn({"/usr/bin/bwrap", "--unshare-all", "--die-with-parent",
                                     "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                     "true", nullptr});
                     },
                     {}});
  // Where the time goes: the same run with one protection left out (bench only).
  if (std::getenv("AW_BENCH_BREAKDOWN"))
    cases.push_back({"  same as sandbox", sandboxed(plan), {}});
  if (std::getenv("AW_BENCH_BREAKDOWN"))
    for (const auto& knob : aw::kProtections) {
      aw::SandboxPlan p = plan;
      p.disable_for_test = {knob};
      cases.push_back({"  without " + knob, sandboxed(p), {}});
    }
  measure(cases, runs);
  (void)aw::sweep_sandbox_cgroups();
  (void)aw::remove_tree(dir);
  double bare = median(cases[0].ms), sbx = median(cases[1].ms), host = median(cases[2].ms),
         unit = median(cases[3].ms), nolim = median(cases[4].ms), old = median(cases[5].ms),
         old_unit = median(cases[6].ms);
  std::printf("runs per case: %d, interleaved (medians)\n", runs);
  std::printf("bare fork+exec         %7.3f ms\n", bare);
  std::printf("sandbox (net none)     %7.3f ms   overhead %+.3f ms\n", sbx, sbx - bare);
  std::printf("sandbox (net host)     %7.3f ms   overhead %+.3f ms\n", host, host - bare);
  std::printf("sandbox (unit netns)   %7.3f ms   overhead %+.3f ms%s\n", unit, unit - bare,
              unit_ns ? "" : "  (no unit netns: not root)");
  std::printf("sandbox (no cgroups)    %7.3f ms   overhead %+.3f ms (net none, fresh netns)\n",
              nolim, nolim - bare);
  std::printf("sandbox (old view)     %7.3f ms   new view/old view %.2fx (%zu root-only masks)\n",
              old, sbx / old, plan.root_only.size());
  std::printf("old view, unit netns   %7.3f ms   new view/old view %.2fx (unit netns)\n", old_unit,
              unit / old_unit);
  if (have_bwrap) {
    double view = median(cases[7].ms), bw = median(cases[8].ms);
    std::printf(
        "bwrap, the same view   %7.3f ms   sandbox/bwrap-view %.2fx, unit-netns/bwrap-view %.2fx\n",
        view, sbx / view, unit / view);
    std::printf("bwrap --ro-bind / /    %7.3f ms   sandbox/bwrap %.2fx, unit-netns/bwrap %.2fx\n",
                bw, sbx / bw, unit / bw);
  } else {
    std::printf("bwrap: not installed (apt-get install bubblewrap)\n");
  }
  for (size_t i = have_bwrap ? 9 : 7; i < cases.size(); ++i)
    std::printf("%-20s %7.3f ms (%+.3f)\n", cases[i].name.c_str(), median(cases[i].ms),
                median(cases[i].ms) - sbx);
  return 0;
}
