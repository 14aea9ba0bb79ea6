// The steps of a unit, shared by pipeline.cc and the files that implement them. Not for other
// rooms: they call run_unit (pipeline.h).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "git/git.h"
#include "record/record.h"
#include "unit/isolator.h"
#include "unit/pipeline.h"
#include "unit/transcript.h"

namespace aw {

class AgentSession;
class Watchdog;
struct ForgeSession;

// What a request resolves to before any unit exists.
struct Target {
  std::string label;  // config name or path as given
  RepoConfig repo;
  SourceRepo source;
  std::string base_ref;  // as resolved: a branch name, tag or commit
  std::string base_commit;
  std::string clone_branch;  // the branch checked out in the clone
  AgentConfig agent;
  ProfileConfig profile;  // the chosen profile (name "" = none); its secrets not read yet
  // A forge repository: its session (token, client) and its mirror, the unit's source. The
  // mirror stays locked until the unit's clone is made.
  std::shared_ptr<ForgeSession> forge;
  std::shared_ptr<MirrorLock> mirror_lock;
  std::string request_repo;  // what a request's `repo` must name: OWNER/REPO, else the label
};
// An unknown --profile (or agent) is an Error naming the defined ones: no unit is made.
Result<Target> resolve_target(const Config& cfg, const RunRequest& req);
// A forge (github:) or url: repository: its session (forge), then its mirror fetched and locked
// as t.source.
Status open_remote_source(const Config& cfg, Target& t);

using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// A unit's profile with its secrets read from the secret store: what every phase gets in its
// environment, by name. The values never go on an argv or into a record.
struct ResolvedProfile {
  std::string name;  // "" = no profile
  std::map<std::string, std::string> vars;
  std::map<std::string, std::string> secrets;  // secret name -> value
  // vars then secrets, as environment pairs.
  EnvPairs env() const;
  std::vector<std::string> secret_names() const;  // sorted
  // The values every recorded byte of the unit is redacted of.
  std::vector<std::string> secret_values() const;
};
// The profile t names (chosen by resolve_target: --profile, else the repo's, else the agent's),
// its secrets read from the default secret store (opened only when the profile has secrets). A
// missing secret is an Error naming the secret, the profile and the fix `awaywork secret set`.
// req is the request t was resolved from.
Result<ResolvedProfile> resolve_profile(const Config& cfg, const Target& t, const RunRequest& req);

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
// owner variables named in owner_names, the profile's pairs (vars and secrets), then the unit's
// placeholders and the isolator's extras, which win over a profile.
std::vector<std::string> unit_env(const UnitPaths& paths, const std::string& unit_id,
                                  const std::string& phase, const Isolator& iso,
                                  const std::vector<std::string>& owner_names,
                                  const std::string& prompt_file, const EnvPairs& profile = {});

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
  const ResolvedProfile& profile;  // handed to every phase; its secret names go in the record
  AgentSession* agent = nullptr;   // the agent phase's provider side (agent_session.h)
  Watchdog* watchdog = nullptr;    // its floors stop a phase (watchdog.h)
};
// Runs one phase, appends its PhaseRecord to u, sets u.reason on anything but ok.
PhaseVerdict run_one_phase(const PhaseContext& ctx, const PhasePlan& plan, int index,
                           const Clone& clone, UnitRecord& u);

// After the last phase: the patch and requests collected, checked, and published when accepted
// (unless publish is false: `run --artifact`, whose apply is the apply job's).
// secrets: the unit's literal secret values (a patch holding one is refused; requests and the
// verdict are redacted of them).
struct Outcome {
  UnitState state;
  std::string reason;
};
Outcome collect_check_apply(const Target& t, const RunDir& dir, const UnitPaths& paths,
                            const Clone& clone, UnitRecord& u,
                            const std::vector<std::string>& secrets = {}, bool publish = true);

}  // namespace aw
