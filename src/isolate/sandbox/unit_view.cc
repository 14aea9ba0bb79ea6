#include "isolate/sandbox/unit_view.h"

#include <unistd.h>

#include <cstdlib>

#include "config/paths.h"
#include "isolate/sandbox/plan.h"

namespace aw {

std::string phase_path() {
  const char* path = std::getenv("PATH");
  return path ? path : "/usr/local/bin:/usr/bin:/bin";
}

std::string sandboxed_note(const SandboxPlan& plan) {
  std::string note = fmt::format("sandboxed: network {}", to_string(plan.network));
  if (plan.network == Network::allowlist)
    note += fmt::format(" ({} allowed host(s) through the egress proxy)", plan.allow.size());
  return note + view_note(plan);
}

std::string view_note(const SandboxPlan& plan) {
  auto lines = home_in_view(plan, plan.owner_home);
  std::erase_if(lines, [](const std::string& l) { return l.rfind("the unit's own", 0) == 0; });
  if (lines.empty()) return "";
  std::string out = "; of the homes in view (read-only): ";
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + lines[i];
  return out;
}

SandboxPaths sandbox_base_paths(const Config& cfg) {
  SandboxPaths sp;
  sp.owner_home = home_dir();
  sp.config_dir = default_config_dir();
  sp.state_dir = state_dir_of(cfg);
  if (!cfg.file.empty()) sp.secret_files.push_back(cfg.file);
  sp.path_value = phase_path();
  sp.root_owner = ::geteuid() == 0;
  return sp;
}

SandboxPaths sandbox_unit_paths(const Config& cfg, const IsolationSpec& spec) {
  SandboxPaths sp = sandbox_base_paths(cfg);
  auto add = [&](const Argv& argv) {
    if (!argv.empty() && !argv[0].empty()) sp.programs.push_back(argv[0]);
  };
  add(spec.repo.setup);
  add(spec.agent.command);
  for (const auto& c : spec.repo.checks) add(c);
  return sp;
}

}  // namespace aw
