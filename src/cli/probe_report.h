// What the three `awaywork probe` bodies (isolation none, user, container) share: probing the
// state folder entry by entry, and reading and printing the inside's answer.
#pragma once

#include <functional>
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
// own_run is this run's folder (runs/<id>), left out. Creating a file in the state folder, in
// runs/ and in own_run itself must fail (write.state, write.runs, write.run_folder): only the
// unit's folders inside own_run are writable.
void probe_state_dir(const std::string& state, const std::string& own_run, SandboxPlan& plan,
                     ProbeTargets& t);

// Prints the run's probes (text, or JSON with `header`'s fields) and returns the exit code: 0 when
// none leaked, 1 when one did, the run failed or the inside did not answer (said on stderr).
// `heading` starts the text form ("isolation none"); `more` may add results after the run.
int report_probes(const GlobalOptions& g, const std::string& heading, nlohmann::json header,
                  const Result<IsolatedResult>& run,
                  const std::function<void(nlohmann::json&)>& more = {});

}  // namespace aw
