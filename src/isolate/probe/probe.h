// `awaywork probe`: the leak suite run inside the configured isolation exactly as a unit's agent
// phase would run (isolated_run.h), by the isolation's own body: none here (probe.cc), user
// (probe_user.h), container (probe_container.h). cli/cmd_probe.cc parses the flags, calls this
// once and prints the report.
#pragma once

#include "config/config.h"
#include "isolate/probe/probe_report.h"

namespace aw {

ProbeOutcome probe_isolation(const Config& cfg);

}  // namespace aw
