// `awaywork probe [--json]` and its inside half, the hidden `__probe-inside [--json] FILE`.
#pragma once

#include <string>

#include "cli/commands.h"
#include "isolate/probe/probe_report.h"

namespace aw {

// Runs the leak suite inside the configured isolation exactly as an agent would be. Exit 0 when
// no probe leaked, 1 when one did or the isolation refused, 2 on a bad config.
int cmd_probe(const GlobalOptions& g);

// Prints what probe_isolation found (text, or JSON with --json) and returns the exit code: 0 when
// no probe leaked, 1 when one did, the run failed or the inside did not answer (said on stderr).
int render_probe(const GlobalOptions& g, const ProbeOutcome& o);

// Inside the isolation: read the targets file, run the probes, print them. Exit 1 on a leak.
int cmd_probe_inside(bool json, const std::string& targets_file);

}  // namespace aw
