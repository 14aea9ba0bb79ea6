#include "cli/doctor_sandbox.h"

#include <unistd.h>

#include "config/paths.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/unit_view.h"

namespace aw {

Check cgroup_check(const Config& cfg) {
  return {"where containment and limits come from", true,
          describe_limits(cfg.sandbox.limits.enabled), ""};
}

std::vector<Check> sandbox_checks(const Config& cfg) {
  std::vector<Check> out;
  if (cfg.sandbox.mode == SandboxMode::off) return out;
  out.push_back(cgroup_check(cfg));
  std::string where = cfg.file.empty() ? default_config_path() : cfg.file;
  SandboxPaths sp = sandbox_base_paths(cfg);
  // Every configured program, as the units' phases will resolve them: their toolchains are lent.
  auto add = [&](const Argv& argv) {
    if (!argv.empty() && !argv[0].empty()) sp.programs.push_back(argv[0]);
  };
  for (const auto& [name, agent] : cfg.agents) add(agent.command);
  for (const auto& [name, repo] : cfg.repos) {
    add(repo.setup);
    for (const auto& c : repo.checks) add(c);
  }
  auto plan = make_plan(cfg.sandbox, sp);
  if (!plan) {
    out.push_back(
        {"sandbox configuration", false, plan.error().message, "fix `sandbox:` in " + where});
    return out;
  }
  // The egress proxy is started by each unit: it is not a feature of this machine.
  SandboxPlan probe = *plan;
  if (probe.network == Network::allowlist) probe.network = Network::none;
  auto missing = probe_sandbox(probe);
  // preferred runs without the sandbox: a missing feature is worth fixing, not a refusal.
  std::string effect = cfg.sandbox.mode == SandboxMode::required
                           ? "sandbox: required refuses every unit until this is fixed"
                           : "sandbox: preferred runs units unsandboxed until this is fixed";
  for (const auto& m : missing)
    out.push_back({"sandbox: " + m.feature, false, "missing; " + effect, m.fix});
  if (missing.empty())
    out.push_back({"sandbox can be built", true,
                   fmt::format("mode {}, network {}, landlock ABI {}", to_string(plan->mode),
                               to_string(plan->network), landlock_abi()),
                   ""});
  // What of the homes a phase reads, and why (docs/sandbox.md): the owner decides whether that
  // is what the work needs.
  auto home = home_in_view(*plan, plan->owner_home);
  std::string lent;
  for (const auto& h : home) lent += (lent.empty() ? "" : "; ") + h;
  out.push_back({"sandbox view of the homes", true,
                 lent.empty() ? "nothing of your home, other homes or /root (only the unit's own "
                                "folders)"
                              : "read-only: " + lent,
                 ""});
  for (const auto& w : sandbox_warnings(*plan))
    out.push_back({"sandbox strength", false, w,
                   "see the `sandbox:` section of docs/config.md; edit " + where});
  return out;
}

}  // namespace aw
