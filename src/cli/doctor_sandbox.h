// doctor's sandbox checks (isolation none and user): can this machine build the configured
// sandbox, and is it weaker than the default.
#pragma once

#include <vector>

#include "config/config.h"
#include "doctor/doctor.h"

namespace aw {

// One check per kernel feature the plan needs that is missing (with its fix), or one "can be
// built" check; then one failing check per warning (network host, no limits, no landlock).
// Empty when the sandbox is off (isolation_check in cmd_doctor.cc says so).
std::vector<Check> sandbox_checks(const Config& cfg);

// Informational: what contains the phases (cgroup v2 at the root, the owner's delegated group, a
// systemd user scope, cgroup v1, a subreaper) and where the limits come from.
Check cgroup_check(const Config& cfg);

}  // namespace aw
