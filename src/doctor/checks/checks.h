// `awaywork doctor`'s checks: every prerequisite of each isolation, with the exact fix for each.
// The general ones (git, the state folder, the isolation, the secret store, the agent CLIs, the
// inference credentials) apply to all; each isolation adds its room's own. The command (cli/) only
// loads the config, runs the registry for the configured isolation and renders it.
#pragma once

#include <string>

#include "base/result.h"
#include "config/config.h"
#include "doctor/doctor.h"

namespace aw {

// The checks of isolations none, user and container for this config. cfg is read when the checks
// run: it must outlive the registry.
Registry doctor_registry(const Config& cfg);

// `doctor --print-setup`: the whole setup of isolation user for the current owner (worker user,
// deny lists, sudoers), to paste as root.
Result<std::string> doctor_setup(const Config& cfg);

}  // namespace aw
