// The steps of a unit, shared by pipeline.cc and the files that implement them. Not for other
// rooms: they call run_unit (pipeline.h).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "config/config.h"
#include "git/git.h"
#include "record/record.h"
#include "unit/pipeline.h"
#include "unit/isolator.h"
#include "unit/transcript.h"

namespace aw {

// What a request resolves to before any unit exists.
struct Target {
  std::string label;        // config name or path as given
  RepoConfig repo;
  SourceRepo source;
  std::string base_ref;     // as resolved: a branch name, tag or commit
  std::string base_commit;
  std::string clone_branch; // the branch checked out in the clone
  AgentConfig agent;
};
Result<Target> resolve_target(const Config& cfg, const RunRequest& req);

// The run folder of a unit, always the owner's: runs/<id>/. The folders phases use (clone,
// HOME, outputs) are placed by the isolator (UnitPaths); by default they are here too.
struct RunDir {
  std::string root, work, shadow, apply;
  std::string transcript() const { return root + "/transcript.log"; }
  std::string patch() const { return root + "/patch.diff"; }
  std::string summary() const { return root + "/summary.json"; }
  std::string verdict() const { return root + "/verdict.json"; }
  std::string requests() const { return root + "/requests.json"; }
};
Result<RunDir> make_run_dir(const std::string& state_dir, const std::string& id);

struct PhasePlan {
  std::string name;  // setup, agent, check 1..n
  Argv argv;
  bool agent = false;
};
std::vector<PhasePlan> plan_phases(const Target& t, const UnitPaths& paths);

// The environment of a phase, built from nothing (proc/runner.h build_env): the allowlist, the
// unit's placeholders, the isolator's extras, and the owner variables named in owner_names.
std::vector<std::string> unit_env(const UnitPaths& paths, const std::string& unit_id,
                                  const std::string& phase, const Isolator& iso,
                                  const std::vector<std::string>& owner_names,
                                  const std::string& prompt_file);

// How a phase ended, as the unit sees it.
enum class PhaseVerdict { ok, failed, timed_out, cancelled, lost };

struct PhaseContext {
  const Target& target;
  const UnitPaths& paths;
  Isolator& isolator;
  const std::string& unit_id;
  const std::string& prompt;
  std::chrono::steady_clock::time_point deadline;
  Transcript& transcript;
  const UnitObserver& obs;
};
// Runs one phase, appends its PhaseRecord to u, sets u.reason on anything but ok.
PhaseVerdict run_one_phase(const PhaseContext& ctx, const PhasePlan& plan, int index,
                           const Clone& clone, UnitRecord& u);

// After the last phase: the patch and requests collected, checked, and published when accepted.
struct Outcome {
  UnitState state;
  std::string reason;
};
Outcome collect_check_apply(const Target& t, const RunDir& dir, const UnitPaths& paths,
                            const Clone& clone, UnitRecord& u);

}  // namespace aw
