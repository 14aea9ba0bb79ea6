// doctor's sandbox checks (isolation none and user): can this machine build the configured
// sandbox, and is it weaker than the default. The sandbox room's own checks, in doctor's terms;
// doctor/checks/ gathers them with the others.
#pragma once

#include <vector>

#include "config/config.h"
#include "doctor/doctor.h"
#include "isolate/sandbox/plan.h"

namespace aw {

// One check per kernel feature the plan needs that is missing (with its fix), or one "can be
// built" check; then one failing check per warning (network host, no limits, no landlock).
// base: what every sandboxed unit hides and lends before its own folders (the pipeline's
// sandbox_base_paths), to which the configured programs are added. Empty when the sandbox is off
// (doctor/checks' isolation check says so).
std::vector<Check> sandbox_checks(const Config& cfg, SandboxPaths base);

// Informational: what contains the phases (cgroup v2 at the root, the owner's delegated group, a
// systemd user scope, cgroup v1, a subreaper) and where the limits come from.
Check cgroup_check(const Config& cfg);

}  // namespace aw
