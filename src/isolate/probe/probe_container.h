// `awaywork probe` under isolation container: the leak suite run as a unit's agent phase would
// run (the container isolator, its launcher, the unit's phase environment), by a statically
// linked probe lent read-only into the container (the image's libraries are not the host's).
// Only `awaywork probe` lends it; a unit's phases never get it.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/probe/isolated_run.h"
#include "isolate/probe/probe_report.h"

namespace aw {

struct ContainerProbeOptions {
  std::string probe_program;  // "" = aw_probe_static found by static_program()
  // Test-only engine flags (a mount of the host home, a capability) that weaken the container so
  // that a test shows the matching probe reports the leak. Never set by the command.
  std::vector<std::string> weaken_for_test;
};

// out: the probe's JSON array.
using ContainerProbeRun = IsolatedResult;

// Plants the host's canaries (ProbeHost, plus a canary folder in the owner's home), runs the
// probe in one phase container, removes it. Error when the isolation refuses or nothing ran.
Result<ContainerProbeRun> run_container_probe(const Config& cfg, const ContainerProbeOptions& o);

// The command's body for isolation container (isolate/probe/probe.h).
ProbeOutcome probe_container(const Config& cfg);

}  // namespace aw
