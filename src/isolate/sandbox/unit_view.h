// What a unit's sandbox is built from, before the unit's own folders exist: the paths every
// sandboxed unit hides or lends, and the record's words for the view (isolation none and user;
// `awaywork probe` and doctor build the same).
#pragma once

#include <string>

#include "config/config.h"
#include "isolate/isolator.h"
#include "isolate/sandbox/plan.h"

namespace aw {

// The phase's PATH: the owner's (build_env keeps it).
std::string phase_path();

// What every sandboxed unit hides besides the config's list (awaywork's own config and state,
// the config file), with the owner's home: the unit's own folders are left empty.
SandboxPaths sandbox_base_paths(const Config& cfg);
// The same with the unit's programs (setup, agent, checks), whose toolchains the view lends.
SandboxPaths sandbox_unit_paths(const Config& cfg, const IsolationSpec& spec);

// For the record: "; of the homes in view (read-only): ~/.cargo (toolchain: ...)" or "" when
// nothing of a home is (the unit's own folders are not counted).
std::string view_note(const SandboxPlan& plan);
// For the record: "sandboxed: network none", with the allowlist's host count (isolation none and
// user).
std::string sandboxed_note(const SandboxPlan& plan);

}  // namespace aw
