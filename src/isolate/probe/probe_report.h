// What the three `awaywork probe` bodies (isolation none, user, container) share: probing the
// state folder entry by entry, and reading the inside's answer into a report that cli/ prints.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/probe/isolated_run.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/plan.h"

namespace aw {

// The state folder is hidden, but a unit's own folders are lent below it, so its mask holds their
// (empty) mount points: probe what it holds instead, the database and other units' run folders.
// own_run is this run's folder (runs/<id>), left out. Creating a file in the state folder, in
// runs/ and in own_run itself must fail (write.state, write.runs, write.run_folder): only the
// unit's folders inside own_run are writable.
void probe_state_dir(const std::string& state, const std::string& own_run, SandboxPlan& plan,
                     ProbeTargets& t);

// What the host side plants for isolation none and container: the owner's home, the first local
// repository of the config, the env file and the database, each where this config puts it.
ProbeHostOptions probe_host_options(const Config& cfg);

struct ProbeLine {
  bool ok = false;
  std::string name, detail;
};

// One run of the probes, read: what `awaywork probe` prints (text or JSON).
struct ProbeReport {
  std::string heading;       // starts the text form: "isolation none"
  std::string sandbox_note;  // as a unit's record would say it
  nlohmann::json header;     // the JSON form's own fields: {"isolation": "none"}
  nlohmann::json results;    // the inside's array of {name, ok, detail}, as it answered
  std::vector<ProbeLine> lines;
  int leaks = 0;
};

// The run's probes read from the inside's answer. An Error when the run failed or the inside did
// not answer, or answered a field of the wrong type (naming it): the answer comes from inside the
// isolation. `more` may add results after the run.
Result<ProbeReport> read_probe_report(const std::string& heading, nlohmann::json header,
                                      const Result<IsolatedResult>& run,
                                      const std::function<void(nlohmann::json&)>& more = {});

// What `awaywork probe` ends with: the report, and what the isolation let through on the way
// (isolation user: doctor's failures the probe runs in spite of, each with its fix).
struct ProbeOutcome {
  std::vector<std::string> warnings;
  Result<ProbeReport> report;
};

}  // namespace aw
