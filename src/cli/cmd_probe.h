// `awaywork probe [--json]` and its inside half, the hidden `__probe-inside [--json] FILE`.
#pragma once

#include <string>

#include "cli/commands.h"

namespace aw {

// Runs the leak suite inside the configured isolation exactly as an agent would be. Exit 0 when
// no probe leaked, 1 when one did or the isolation refused, 2 on a bad config.
int cmd_probe(const GlobalOptions& g);

// Inside the isolation: read the targets file, run the probes, print them. Exit 1 on a leak.
int cmd_probe_inside(bool json, const std::string& targets_file);

}  // namespace aw
