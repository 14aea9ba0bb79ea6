#include "isolate/probe/probe_container.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "config/paths.h"
#include "isolate/container/isolator_container.h"
#include "isolate/static_program.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/plan.h"

namespace aw {

namespace {

constexpr const char* kProbeInside = "/.awaywork/probe";

// A folder in the owner's home holding a fake token, for as long as the probe runs: the image has
// a home of its own at that path (or none), so only this canary tells the host's home apart.
class HomeCanary {
 public:
  static Result<std::unique_ptr<HomeCanary>> plant(const std::string& home) {
    std::string templ = home + "/.awaywork-probe-XXXXXX";
    if (!::mkdtemp(templ.data())) return fail("canary in {}: {}", home, errno_text(errno));
    std::unique_ptr<HomeCanary> c(new HomeCanary());
    c->dir = templ;
    c->file = templ + "/token";
    AW_CHECK(write_file(c->file, "ghp_AWAYWORKPROBECANARY0000000000000000000\n", 0600));
    return c;
  }
  ~HomeCanary() { (void)remove_tree(dir); }
  std::string dir, file;

 private:
  HomeCanary() = default;
};

// The targets as a container sees them. The container's own root filesystem (its /etc, its
// /usr/local/bin, its home) is the image's, thrown away with it: writing there reaches nothing of
// the host, so those write probes give way to the home canary. The limits are the engine's
// (--pids-limit, --memory), taken from the same config.
ProbeTargets container_targets(ProbeTargets t, const Config& cfg, const HomeCanary* canary,
                               const std::string& home) {
  std::erase_if(t.writes, [&](const auto& w) {
    return w.second == home || w.second == "/etc" || w.second == "/usr/local/bin";
  });
  // The container's /etc is the image's own (the host's is not mounted): its shadow is no secret
  // of the host's. The image's files are the image builder's to close.
  std::erase_if(t.secrets, [](const auto& s) { return s.first.rfind("rootonly:", 0) == 0; });
  if (canary) {  // an owner without a writable home has no home of the host's to leak
    t.secrets.emplace_back("host.home_canary", canary->file);
    t.writes.emplace_back("write.home", canary->dir);
  }
  // Through the bridge, the egress proxy refuses a name it was not given (no DNS needed).
  if (cfg.sandbox.network == Network::allowlist)
    t.http_denied.emplace_back("net.denied_host", "awaywork-probe.invalid:80");
  t.sudo = true;
  t.fork_bomb = cfg.sandbox.limits.pids > 0 ? cfg.sandbox.limits.pids * 2 : 0;
  t.memory_hog = cfg.sandbox.limits.memory_bytes * 2;
  return t;
}

struct Planted {
  std::unique_ptr<HomeCanary> canary;
  std::unique_ptr<ProbeHost> host;
};

// The host's canaries for one run; `plan` is the sandbox plan a unit would run under, own_run
// this run's folder.
Status plant(const Config& cfg, const UnitPaths& paths, SandboxPlan plan,
             const std::string& own_run, Planted& p) {
  std::string home = home_dir();
  plan.apply_limits = false;  // the engine's limits, set below
  ProbeTargets state_targets;
  probe_state_dir(state_dir_of(cfg), own_run, plan, state_targets);
  AW_TRY(p.host, ProbeHost::start(plan, probe_host_options(cfg)));
  if (auto c = HomeCanary::plant(home)) p.canary = std::move(*c);
  ProbeTargets t = container_targets(p.host->targets(), cfg, p.canary.get(), home);
  t.secrets.insert(t.secrets.end(), state_targets.secrets.begin(), state_targets.secrets.end());
  return write_file(paths.tmp + "/probe-targets", format_probe_targets(t), 0644);
}

}  // namespace

Result<ContainerProbeRun> run_container_probe(const Config& cfg, const ContainerProbeOptions& o) {
  std::string program = o.probe_program;
  if (program.empty()) {
    AW_TRY(program, static_program("aw_probe_static"));
  }
  ContainerExtras extras;
  extras.lend_readonly = {{program, kProbeInside}};
  extras.weaken_for_test = o.weaken_for_test;
  Planted planted;
  std::string own_run;
  IsolatedCommand cmd;
  cmd.argv = {kProbeInside, "--json", "{tmp}/probe-targets"};
  cmd.isolator = [&](const std::string& id) {
    own_run = state_dir_of(cfg) + "/runs/" + id;
    IsolationSpec spec;
    spec.label = "probe";
    return make_container_isolator_with(cfg, spec, id, extras);
  };
  cmd.prepare = [&](const UnitPaths& paths, const SandboxPlan& plan, const std::string&) {
    return plant(cfg, paths, plan, own_run, planted);
  };
  return run_isolated(cfg, cmd);
}

ProbeOutcome probe_container(const Config& cfg) {
  return {{},
          read_probe_report("isolation container", {{"isolation", "container"}},
                            run_container_probe(cfg, {}))};
}

}  // namespace aw
