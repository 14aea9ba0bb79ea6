#include "unit/pipeline.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "config/paths.h"
#include "record/store.h"
#include "unit/steps.h"
#include "unit/unit_id.h"

namespace aw {

namespace {

UnitState state_for(PhaseVerdict v) {
  switch (v) {
    case PhaseVerdict::ok: return UnitState::done;
    case PhaseVerdict::failed: return UnitState::failed;
    case PhaseVerdict::timed_out: return UnitState::timed_out;
    case PhaseVerdict::cancelled: return UnitState::interrupted;
    case PhaseVerdict::lost: return UnitState::lost;
  }
  return UnitState::failed;
}

// The record's end: state, files, database. The clone stays for inspection; the unit's HOME and
// TMPDIR go with the unit.
void finish(Store& store, const RunDir& dir, UnitRecord& u, UnitState state) {
  u.state = state;
  u.ended_at = iso_now();
  (void)write_file(dir.summary(), to_json(u).dump(2) + "\n", 0600);
  if (state != UnitState::lost) {
    (void)remove_tree(dir.home);
    (void)remove_tree(dir.tmp);
  }
  if (auto ok = store.save(u); !ok)
    u.notes.push_back("could not save the record: " + ok.error().message);
}

// Collect the patch and publish it as awaywork/<id> in the source. Returns the failure reason.
std::string collect_and_apply(const Target& t, const RunDir& dir, const Clone& clone,
                              UnitRecord& u) {
  auto patch = make_patch(clone);
  if (!patch) return "collect: " + patch.error().message;
  (void)write_file(dir.patch(), patch->text, 0600);
  u.patch_stat = patch->stat;
  u.patch_files = static_cast<int>(patch->paths.size());
  u.omitted = patch->omitted;
  if (patch->text.empty()) {
    u.notes.push_back("the agent changed nothing: no branch made");
    return "";
  }
  std::string branch = "awaywork/" + u.id;
  std::string message = fmt::format("awaywork: {}\n\nUnit {} on {} at {}.\n", u.prompt.substr(0, 60),
                                    u.id, t.label, u.base_commit.substr(0, 12));
  auto commit = publish_branch(t.source, u.base_commit, patch->text, branch, Identity{}, message,
                               dir.apply);
  if (!commit) return "apply: " + commit.error().message;
  u.branch = branch;
  u.commit = *commit;
  return "";
}

}  // namespace

std::string state_dir_of(const Config& cfg) {
  return cfg.state_dir.empty() ? default_state_dir() : cfg.state_dir;
}

Result<UnitRecord> run_unit(const Config& cfg, const RunRequest& req, const UnitObserver& obs) {
  if (cfg.isolation != Isolation::none)
    return fail("isolation '{}' is not available yet; set `isolation: none`",
                to_string(cfg.isolation));
  if (cfg.sandbox.mode == SandboxMode::required)
    return fail("sandbox mode `required`, but this build cannot sandbox yet; set `sandbox: {{mode: "
                "preferred}}` to run unsandboxed (recorded on the unit)");
  AW_TRY(Target t, resolve_target(cfg, req));
  std::string state = state_dir_of(cfg);
  AW_TRY(Store store, Store::open(state));
  recover_abandoned(store);

  UnitRecord u;
  u.id = new_unit_id(req.prompt);
  u.created_at = iso_now();
  u.repo = t.label;
  u.source = t.source.work_tree.empty() ? t.source.git_dir : t.source.work_tree;
  u.agent = t.agent.name;
  u.prompt = req.prompt;
  u.base_ref = t.base_ref;
  u.base_commit = t.base_commit;
  u.isolation = to_string(cfg.isolation);
  u.sandbox = cfg.sandbox.mode == SandboxMode::off
                  ? "unsandboxed: sandbox mode off"
                  : "unsandboxed: this build has no sandbox yet (mode preferred)";
  u.runner_pid = ::getpid();
  u.runner_start = process_start_time(u.runner_pid);
  AW_TRY(RunDir dir, make_run_dir(state, u.id));
  u.run_dir = dir.root;
  AW_CHECK(store.save(u));
  if (obs.started) obs.started(u);

  auto clone = make_clone(t.source, t.base_commit, t.clone_branch, dir.work, dir.shadow);
  if (!clone) {
    u.reason = "prepare: " + clone.error().message;
    finish(store, dir, u, UnitState::failed);
    return u;
  }
  (void)write_file(dir.prompt(), req.prompt, 0600);
  auto transcript = Transcript::open(dir.transcript(), nullptr);
  if (!transcript) {
    u.reason = transcript.error().message;
    finish(store, dir, u, UnitState::failed);
    return u;
  }
  int seconds = req.unit_seconds.value_or(cfg.unit_minutes * 60);
  PhaseContext ctx{t,      dir,         u.id,
                   req.prompt, std::chrono::steady_clock::now() + std::chrono::seconds(seconds),
                   *transcript, obs};
  for (const auto& plan : plan_phases(t, dir)) {
    PhaseVerdict v = run_one_phase(ctx, plan, *clone, u);
    (void)store.save(u);
    if (v != PhaseVerdict::ok) {
      transcript->close();
      finish(store, dir, u, state_for(v));
      return u;
    }
  }
  transcript->close();
  u.reason = collect_and_apply(t, dir, *clone, u);
  finish(store, dir, u, u.reason.empty() ? UnitState::done : UnitState::failed);
  return u;
}

}  // namespace aw
