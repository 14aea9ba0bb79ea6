#include "cli/doctor_sandbox.h"

#include <unistd.h>

#include "config/paths.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "unit/isolated_run.h"

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
  auto plan = make_plan(cfg.sandbox, sandbox_base_paths(cfg));
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
  for (const auto& w : sandbox_warnings(*plan))
    out.push_back({"sandbox strength", false, w,
                   "see the `sandbox:` section of docs/config.md; edit " + where});
  return out;
}

}  // namespace aw
