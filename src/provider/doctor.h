// `doctor`: which agent CLIs are installed, where, and their versions.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor.h"

namespace aw {

// Where scripts/agent-clis installs the pinned CLIs (its bin folder).
inline constexpr const char* kAgentClisBin = "/var/cache/awaywork/agent-clis/node_modules/.bin";

// One check per built-in provider with a CLI, searched in path_value (a PATH value). A CLI
// named in `required` fails its check when missing or when `--version` fails; the others are
// informational (ok, with "not installed" in the detail). Each `--version` runs with a clean
// environment (PATH, HOME=/nonexistent) under a 20 s `timeout`.
std::vector<Check> agent_cli_checks(const std::string& path_value,
                                    const std::vector<std::string>& required = {});

}  // namespace aw
