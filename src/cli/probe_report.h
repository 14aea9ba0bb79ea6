// What the three `awaywork probe` bodies (isolation none, user, container) share: probing the
// state folder entry by entry, and reading and printing the inside's answer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/plan.h"
#include "unit/isolated_run.h"

namespace aw {

// The state folder is hidden, but a unit's own folders are lent below it, so its mask holds their
// (empty) mount points: probe what it holds instead, the database and other units' run folders.
// own_run is this run's folder (runs/<id>), left out.
void probe_state_dir(const std::string& state, const std::string& own_run, SandboxPlan& plan,
                     ProbeTargets& t);

// The inside's JSON array of probes, or an Error quoting what it printed instead.
Result<nlohmann::json> probe_answer(const IsolatedResult& r);

// Prints the probes (text, or JSON with `header`'s fields first) and returns the exit code: 0
// when none leaked, 1 otherwise. `heading` starts the text form ("isolation none").
int report_probes(const GlobalOptions& g, const std::string& heading, nlohmann::json header,
                  const IsolatedResult& r, const nlohmann::json& results);

}  // namespace aw
