// `awaywork probe`: the outer side plants canaries (ProbeHost), writes their places where the
// inside can read them, and runs `awaywork __probe-inside` as a unit's agent phase would run.
#include "cli/cmd_probe.h"

#include <limits.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "cli/probe_container.h"
#include "cli/probe_report.h"
#include "cli/probe_user.h"
#include "config/config.h"
#include "config/paths.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probes.h"
#include "unit/isolated_run.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

struct Host {
  std::unique_ptr<ProbeHost> host;
  std::string targets_file;
  bool unsandboxed = false;
};

Status prepare(const Config& cfg, const UnitPaths& paths, SandboxPlan plan, bool unsandboxed,
               Host& h) {
  std::string state = state_dir_of(cfg);
  ProbeTargets extra;
  std::string run_root = paths.home.substr(0, paths.home.rfind('/'));
  probe_state_dir(state, run_root, plan, extra);
  ProbeHostOptions o;
  o.owner_home = home_dir();
  for (const auto& [name, repo] : cfg.repos)
    if (!repo.path.empty()) {
      o.source_repo = repo.path;
      break;
    }
  o.env_file = default_config_dir() + "/env";
  o.database = state + "/awaywork.db";
  AW_TRY(h.host, ProbeHost::start(plan, o));
  ProbeTargets t = h.host->targets();
  t.secrets.insert(t.secrets.end(), extra.secrets.begin(), extra.secrets.end());
  t.writes.insert(t.writes.end(), extra.writes.begin(), extra.writes.end());
  if (unsandboxed) {  // nothing limits them: they would exhaust the owner's machine
    t.fork_bomb = 0;
    t.memory_hog = 0;
  }
  h.targets_file = paths.tmp + "/probe-targets";
  return write_file(h.targets_file, format_probe_targets(t), 0600);
}

}  // namespace

int cmd_probe(const GlobalOptions& g) {
  auto cfg = load_config(g.config.empty() ? default_config_path() : g.config, !g.config.empty());
  if (!cfg) {
    fmt::print(stderr, "awaywork probe: {}\n", cfg.error().message);
    return kExitUsage;
  }
  if (cfg->isolation == Isolation::container) return cmd_probe_container(g, *cfg);
  if (cfg->isolation == Isolation::user) return cmd_probe_user(g, *cfg);  // cli/probe_user.h
  Host h;
  IsolatedCommand cmd;
  cmd.argv = {self_exe(), "__probe-inside", "--json", "{tmp}/probe-targets"};
  cmd.prepare = [&](const UnitPaths& paths, const SandboxPlan& plan, const std::string& note) {
    h.unsandboxed = note.rfind("sandboxed:", 0) != 0;
    return prepare(*cfg, paths, plan, h.unsandboxed, h);
  };
  auto r = run_isolated(*cfg, cmd);
  h.host.reset();
  return report_probes(g, fmt::format("isolation {}", to_string(cfg->isolation)),
                       {{"isolation", to_string(cfg->isolation)}}, r);
}

int cmd_probe_inside(bool json, const std::string& targets_file) {
  auto text = read_file(targets_file);
  if (!text) {
    fmt::print(stderr, "awaywork __probe-inside: {}\n", text.error().message);
    return kExitUsage;
  }
  auto targets = parse_probe_targets(*text);
  if (!targets) {
    fmt::print(stderr, "awaywork __probe-inside: {}\n", targets.error().message);
    return kExitUsage;
  }
  return run_probes(*targets, json, std::cout) > 0 ? kExitFailed : kExitDone;
}

}  // namespace aw
