// Test-only knobs of the runner (not configuration): force a containment path so that each one is
// exercised on a machine that has them all.
#pragma once

#include "proc/cgroup.h"
#include "proc/runner.h"

namespace aw {

struct RunnerKnobs {
  CgroupMode cgroup = CgroupMode::automatic;
};

Result<PhaseResult> run_phase_with(const PhaseSpec& spec, const RunnerKnobs& knobs);

}  // namespace aw
