// The steps of a unit, shared by pipeline.cc and the files that implement them. Not for other
// rooms: they call run_unit (pipeline.h).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "git/git.h"
#include "isolate/isolator.h"
#include "record/record.h"
#include "unit/pipeline.h"
#include "unit/transcript.h"

namespace aw {

class AgentSession;
struct Verdict;
class Watchdog;

// What a request resolves to before any unit exists. It reaches every phase (PhaseContext), so it
// holds data only: no publisher and no credential (a host's credential stays with its publisher,
// and goes to the mirror's fetch alone). tests/unit/wiring_test.cc pins its members, and
// PhaseContext's.
struct Target {
  std::string label;  // config name or path as given
  RepoConfig repo;
  SourceRepo source;
  std::string base_ref;  // as resolved: a branch name, tag or commit
  std::string base_commit;
  std::string clone_branch;  // the branch checked out in the clone
  AgentConfig agent;
  ProfileConfig profile;  // the chosen profile (name "" = none); its secrets not read yet
  // A remote repository's mirror, the unit's source: locked until the unit's clone is made.
  std::shared_ptr<MirrorLock> mirror_lock;
  std::string request_repo;  // what a request's `repo` must name: OWNER/REPO, else the label
  // What of it the isolation is told (isolate/isolator.h): data, copied when the isolator is made.
  IsolationSpec isolation() const { return {label, repo, agent, profile, {}}; }
  // The commit whose agent instruction paths the agent gets (RunRequest::instructions_from); ""
  // = base_commit's.
  std::string instructions_commit;
};
// The target, and the publisher that serves its repository (null: git's own), kept apart: the
// publisher may hold a credential, and the target reaches the phases.
struct Resolved {
  Target target;
  std::unique_ptr<Publisher> publisher;
};
// An unknown --profile (or agent) is an Error naming the defined ones: no unit is made.
// publishers: the caller's (publisher.h), opened for a remote repository.
Result<Resolved> resolve_target(const Config& cfg, const RunRequest& req,
                                const OpenPublisher& publishers = {});
// A remote repository (a host's, github:, or url:): its publisher opened by publishers (for a
// host's), then its mirror fetched (from the publisher's source_remote, else url:) and locked as
// t.source.
Status open_remote_source(const Config& cfg, Target& t, const OpenPublisher& publishers,
                          std::unique_ptr<Publisher>& pub);

// A unit's profile with its secrets read from the secret store: what every phase gets in its
// environment, by name. The values never go on an argv or into a record.
struct ResolvedProfile {
  std::string name;  // "" = no profile
  std::map<std::string, std::string> vars;
  std::map<std::string, std::string> secrets;  // secret name -> value
  // NAME=placeholder of each secret the egress proxy adds (config `secrets:`): the phases hold
  // these instead of the values, which stay with the proxy (unit/unit_injection.h).
  EnvPairs placeholders;
  // vars, secrets, then placeholders, as environment pairs.
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
  RunFolder folder() const { return {root, work}; }  // what the isolator is told of it
  std::string transcript() const { return root + "/transcript.log"; }
  std::string transcript_index() const { return root + "/transcript.index"; }  // its marks
  std::string patch() const { return root + "/patch.diff"; }
  std::string summary() const { return root + "/summary.json"; }
  std::string verdict() const { return root + "/verdict.json"; }
  std::string requests() const { return root + "/requests.json"; }
};
Result<RunDir> make_run_dir(const std::string& state_dir, const std::string& id);

// What runs once, before any agent round: setup, then when: (each when the repository has it).
std::vector<PhasePlan> plan_prelude(const Target& t);
// One agent round: the agent, then each check. A repository of one round keeps the names agent,
// check I; with loop.rounds > 1 they are agent K, then check I in round 1, check I (round K) after.
std::vector<PhasePlan> plan_round(const Target& t, const UnitPaths& paths, int round);
// The prelude and round 1: every program a unit may run.
std::vector<PhasePlan> plan_phases(const Target& t, const UnitPaths& paths);

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
  UnitObserver& obs;
  const ResolvedProfile& profile;  // handed to every phase; its secret names go in the record
  AgentSession* agent = nullptr;   // the agent phase's provider side (agent_session.h)
  Watchdog* watchdog = nullptr;    // its floors stop a phase (watchdog.h)
  const std::vector<std::string>* literals = nullptr;  // what a PhaseOutput tail is redacted of
  // Saves the record: called once a phase's current_phase is set, so that a reader of the record
  // (the dashboard) names the running phase and when it began. Empty: not saved then.
  std::function<void()> save = {};
};
// How a phase's own command ended, for the next round's task or a skip's reason.
struct PhaseOutput {
  bool ended_itself = false;  // it exited or was killed by a signal (not stopped by awaywork)
  bool exited = false;        // it exited (with exit_code)
  int exit_code = -1;
  std::string outcome;  // "exit 1", "killed by signal 9 (SIGKILL)"
  std::string tail;     // the redacted end of its output (round_task.h OutputTail)
};
// Runs one phase, appends its PhaseRecord to u, sets u.reason on anything but ok. out, when
// given, gets how the command ended once the after-phase checks passed.
PhaseVerdict run_one_phase(const PhaseContext& ctx, const PhasePlan& plan, int index,
                           const Clone& clone, UnitRecord& u, PhaseOutput* out = nullptr);

// The phases of a unit after prepare: the prelude, then agent rounds while the checks fail and
// rounds remain (rounds.cc). Between rounds: the agent instruction paths restored to the base's,
// a fresh run token, the task rewritten with the failed checks' output.
struct RoundsInput {
  const PhaseContext& ctx;  // ctx.prompt refers to task
  const Clone& clone;
  const RunDir& dir;
  std::string& task;                   // the agent's task, rewritten before each later round
  std::vector<std::string>& literals;  // gains each round's run token
  std::function<void()> save;          // the record saved after each phase
};
struct RoundsEnd {
  bool passed = false;                  // a round's checks passed: collect, check, apply
  UnitState state = UnitState::failed;  // otherwise, with u.reason
};
RoundsEnd run_rounds(const RoundsInput& in, UnitRecord& u);

// After the last phase: the patch and requests collected, checked, and published when accepted
// (unless publish is false: `run --artifact`, whose apply is the apply job's).
// secrets: the unit's literal secret values (a patch holding one is refused; requests and the
// verdict are redacted of them).
struct Outcome {
  UnitState state;
  std::string reason;
};
// pub: the repository's publisher (null: git's own). cfg: whose check plugins are asked after
// awaywork's own check accepted (docs/plugins.md); null = none.
Outcome collect_check_apply(const Target& t, Publisher* pub, const RunDir& dir,
                            const UnitPaths& paths, const Clone& clone, UnitRecord& u,
                            const std::vector<std::string>& secrets = {}, bool publish = true,
                            const Config* cfg = nullptr);
// The checked patch of unit u on t published (apply_checked, through pub; null: git's own) with
// the verdict v's paths and requests, its scratch at scratch_dir: the pipeline's apply and
// `awaywork apply --from DIR`'s (artifact.cc) are the same.
Result<Applied> apply_verdict(const Target& t, Publisher* pub, UnitRecord& u,
                              const std::string& patch, const Verdict& v,
                              const std::string& scratch_dir);

}  // namespace aw
