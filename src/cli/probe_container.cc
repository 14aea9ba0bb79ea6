#include "cli/probe_container.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "config/paths.h"
#include "isolate/container/static_program.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/plan.h"
#include "unit/isolated_run.h"
#include "unit/isolator_container.h"
#include "unit/pipeline.h"
#include "unit/steps.h"
#include "unit/unit_id.h"

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

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string n = e->d_name; n != "." && n != "..") out.push_back(n);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The clone is mounted at its own path below the state folder, so the folders above it exist
// inside (empty but for the way down): probe what the state folder holds instead, the database
// and other units' run folders (as cmd_probe does for the sandbox).
void probe_state_dir(const std::string& state, const std::string& own_run, SandboxPlan& plan,
                     ProbeTargets& t) {
  std::erase(plan.hidden, state);
  for (const auto& n : entries(state))
    if (n != "runs") t.secrets.emplace_back("hidden.state:" + n, state + "/" + n);
  int others = 0;
  for (const auto& n : entries(state + "/runs"))
    if (state + "/runs/" + n != own_run && others++ < 3)
      t.secrets.emplace_back("hidden.other_unit", state + "/runs/" + n);
}

struct Planted {
  std::unique_ptr<HomeCanary> canary;
  std::unique_ptr<ProbeHost> host;
};

Status plant(const Config& cfg, const UnitPaths& paths, const std::string& run_root, Planted& p) {
  std::string home = home_dir();
  SandboxPaths sp = sandbox_base_paths(cfg);
  sp.clone = paths.work;
  sp.home = paths.home;
  sp.provider_state = {paths.tmp, paths.outputs};
  AW_TRY(SandboxPlan plan, make_plan(cfg.sandbox, sp));
  plan.apply_limits = false;  // the engine's limits, set below
  ProbeTargets state_targets;
  probe_state_dir(state_dir_of(cfg), run_root, plan, state_targets);
  ProbeHostOptions o;
  o.owner_home = home;
  for (const auto& [name, repo] : cfg.repos)
    if (!repo.path.empty()) {
      o.source_repo = repo.path;
      break;
    }
  o.env_file = default_config_dir() + "/env";
  o.database = state_dir_of(cfg) + "/awaywork.db";
  AW_TRY(p.host, ProbeHost::start(plan, o));
  if (auto c = HomeCanary::plant(home)) p.canary = std::move(*c);
  ProbeTargets t = container_targets(p.host->targets(), cfg, p.canary.get(), home);
  t.secrets.insert(t.secrets.end(), state_targets.secrets.begin(), state_targets.secrets.end());
  return write_file(paths.tmp + "/probe-targets", format_probe_targets(t), 0644);
}

// The isolator's side, in the order the pipeline calls it (as run_isolated does).
Result<ContainerProbeRun> run_in(Isolator& iso, const Config& cfg, const RunDir& dir,
                                 const std::string& id) {
  AW_TRY(UnitPaths paths, iso.layout(dir));
  if (::mkdir(paths.work.c_str(), 0700) != 0)
    return fail("create {}: {}", paths.work, errno_text(errno));
  // As the pipeline does, the prompt is written before ready() (the probe has none).
  AW_CHECK(write_file(paths.prompt_file, "", 0600));
  Clone clone;
  clone.work = paths.work;
  AW_CHECK(iso.ready(clone, paths));
  Planted planted;
  AW_CHECK(plant(cfg, paths, dir.root, planted));
  PhasePlan phase{"probe", {kProbeInside, "--json", paths.tmp + "/probe-targets"}, true};
  AW_CHECK(iso.before_phase());
  AW_TRY(Launcher launcher, iso.launcher(phase, 0));
  ContainerProbeRun out;
  out.sandbox_note = iso.sandbox_note();
  PhaseSpec spec;
  spec.name = phase.name;
  spec.argv = phase.argv;
  spec.env = unit_env(paths, id, phase.name, iso, {}, "");
  spec.cwd = paths.work;
  spec.timeout = std::chrono::minutes(5);
  spec.launcher = std::move(launcher);
  spec.on_output = [&](Stream s, std::string_view b) {
    (s == Stream::out ? out.out : out.err) += b;
  };
  auto result = run_phase(spec);
  std::vector<std::string> notes;
  AW_CHECK(iso.after_phase(0, notes));
  if (!result) return tl::make_unexpected(result.error());
  out.phase = *result;
  return out;
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
  Target target;
  target.label = "probe";
  std::string id = new_unit_id("probe");
  AW_TRY(std::unique_ptr<Isolator> iso,
         make_container_isolator_with(cfg, target, id, std::move(extras)));
  AW_TRY(RunDir dir, make_run_dir(state_dir_of(cfg), id));
  auto r = run_in(*iso, cfg, dir, id);
  iso->finish(false);
  (void)remove_tree(dir.root);
  return r;
}

int cmd_probe_container(const GlobalOptions& g, const Config& cfg) {
  auto r = run_container_probe(cfg, {});
  if (!r) {
    fmt::print(stderr, "awaywork probe: {}\n", r.error().message);
    return kExitFailed;
  }
  auto results = nlohmann::json::parse(r->out, nullptr, false);
  if (!results.is_array()) {
    fmt::print(stderr, "awaywork probe: the inside did not answer ({}): {}{}\n", describe(r->phase),
               r->out.substr(0, 2000), r->err.substr(0, 2000));
    return kExitFailed;
  }
  int leaks = 0;
  for (const auto& p : results) leaks += p.value("ok", false) ? 0 : 1;
  if (g.json) {
    nlohmann::json out = {{"sandbox", r->sandbox_note},
                          {"isolation", "container"},
                          {"ok", leaks == 0},
                          {"leaks", leaks},
                          {"probes", results}};
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("isolation container, {}\n", r->sandbox_note);
    for (const auto& p : results) {
      if (p.value("ok", false))
        fmt::print("ok   {}\n", p.value("name", ""));
      else
        fmt::print("LEAK {}: {}\n", p.value("name", ""), p.value("detail", ""));
    }
    fmt::print("{} probe(s), {} leak(s)\n", results.size(), leaks);
  }
  return leaks == 0 ? kExitDone : kExitFailed;
}

}  // namespace aw
