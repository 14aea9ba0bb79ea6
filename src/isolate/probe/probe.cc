// The outer side plants canaries (ProbeHost), writes their places where the inside can read them,
// and runs `awaywork __probe-inside` as a unit's agent phase would run.
#include "isolate/probe/probe.h"

#include <memory>

#include "base/fs.h"
#include "config/paths.h"
#include "isolate/probe/probe_container.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probe_user.h"

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
  AW_TRY(h.host, ProbeHost::start(plan, probe_host_options(cfg)));
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

// isolation none: the sandbox's suite, as the owner.
ProbeOutcome probe_none(const Config& cfg) {
  Host h;
  IsolatedCommand cmd;
  cmd.argv = {self_exe(), "__probe-inside", "--json", "{tmp}/probe-targets"};
  cmd.prepare = [&](const UnitPaths& paths, const SandboxPlan& plan, const std::string& note) {
    h.unsandboxed = note.rfind("sandboxed:", 0) != 0;
    return prepare(cfg, paths, plan, h.unsandboxed, h);
  };
  auto r = run_isolated(cfg, cmd);
  h.host.reset();
  return {{},
          read_probe_report(fmt::format("isolation {}", to_string(cfg.isolation)),
                            {{"isolation", to_string(cfg.isolation)}}, r)};
}

}  // namespace

ProbeOutcome probe_isolation(const Config& cfg) {
  switch (cfg.isolation) {
    case Isolation::container:
      return probe_container(cfg);
    case Isolation::user:
      return probe_user(cfg);
    case Isolation::none:
      break;
  }
  return probe_none(cfg);
}

}  // namespace aw
