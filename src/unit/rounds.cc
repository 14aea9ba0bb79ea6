// The phases of a unit once it is prepared (steps.h run_rounds): setup and when: once, then agent
// rounds on the one clone while the checks fail and rounds remain. Each phase goes through
// run_one_phase, so every after-phase protection (kill and prove, identity checks, git metadata
// restored, permissions closed) follows every round. Between rounds, on awaywork's side with
// nothing of the unit running: the agent instruction paths are put back to the base's, every
// nested git repository is removed (git.h remove_nested_repos), the CLIs' and git's own files in
// HOME go back to what they held before round 1 (home_reset.h), the last round's run token is
// revoked and a new one issued, and the task is rewritten.
#include <fmt/format.h>

#include <optional>

#include "base/fs.h"
#include "check/redact.h"
#include "unit/agent_session.h"
#include "unit/home_reset.h"
#include "unit/round_task.h"
#include "unit/steps.h"

namespace aw {

namespace {

UnitState state_for(PhaseVerdict v) {
  switch (v) {
    case PhaseVerdict::ok:
      return UnitState::done;
    case PhaseVerdict::failed:
      return UnitState::failed;
    case PhaseVerdict::timed_out:
      return UnitState::timed_out;
    case PhaseVerdict::cancelled:
      return UnitState::interrupted;
    case PhaseVerdict::lost:
      return UnitState::lost;
  }
  return UnitState::failed;
}

RoundsEnd ended(PhaseVerdict v) {
  return {false, state_for(v)};
}

// A `when:` that exited non-zero: the unit has nothing to do. Its reason is the command's last
// line of output, redacted and inert.
RoundsEnd skipped(const PhaseOutput& out, UnitRecord& u) {
  u.reason = last_line_inert(out.tail);
  if (u.reason.empty()) u.reason = fmt::format("when: {} without output", out.outcome);
  return {false, UnitState::skipped};
}

// Everything between round-1 and round: the instruction paths restored (base read once), nested
// repositories removed, HOME's CLI and git files put back, the next run token, the task rewritten
// and kept in the record (redacted). An Error loses the unit.
Status between_rounds(const RoundsInput& in, int round, const std::vector<FailedCheck>& failed,
                      const std::string& first_task, std::optional<BaseSnapshot>& base,
                      const HomeSnapshot& home, UnitRecord& u) {
  if (!base) {
    AW_TRY(base, snapshot_base_paths(in.clone, kAgentInstructionPaths, kAgentNestedNames));
  }
  std::vector<std::string> notes;
  AW_CHECK(restore_base_paths(in.clone, *base, notes));
  AW_CHECK(remove_nested_repos(in.clone, notes));
  AW_CHECK(restore_home(home, notes));
  std::string agent = plan_round(in.ctx.target, in.ctx.paths, round).front().name;
  for (auto& n : notes) u.notes.push_back(fmt::format("before {}: {}", agent, n));
  if (in.ctx.agent) AW_CHECK(in.ctx.agent->next_round(in.literals));
  in.task = round_task(first_task, round, in.ctx.target.repo.rounds, failed);
  AW_CHECK(write_file(in.ctx.paths.prompt_file, in.task, 0600));
  return write_file(fmt::format("{}/task-round-{}.md", in.dir.root, round),
                    redact_all(in.task, in.literals), 0600);
}

// A pull request's follow-up (issue 26): the clone is the pull request's head, whose author
// may have written its instruction files; the agent gets another commit's (the base branch's)
// before the first phase, and every later round gets those back (`base`). False when the unit
// has none: the clone's own are the base's.
bool instructions_elsewhere(const Target& t) {
  return !t.instructions_commit.empty() && t.instructions_commit != t.base_commit;
}

Status put_other_instructions(const RoundsInput& in, std::optional<BaseSnapshot>& base,
                              UnitRecord& u) {
  const Target& t = in.ctx.target;
  AW_TRY(base, snapshot_paths_at(in.clone, t.instructions_commit, kAgentInstructionPaths,
                                 kAgentNestedNames));
  std::vector<std::string> notes;
  AW_CHECK(restore_base_paths(in.clone, *base, notes));
  for (auto& n : notes)
    u.notes.push_back(fmt::format("instructions from {}, not the clone's: {}",
                                  t.instructions_commit.substr(0, 12), n));
  return {};
}

// After the last round, before the patch is collected: what the agent wrote at those paths is
// dropped (and named in the notes), then the clone's own (the head's) come back, so the patch
// holds neither the base branch's instruction files nor the agent's.
Status put_own_instructions_back(const RoundsInput& in, const BaseSnapshot& other, UnitRecord& u) {
  std::vector<std::string> notes;
  AW_CHECK(restore_base_paths(in.clone, other, notes));
  for (auto& n : notes)
    u.notes.push_back("what the agent wrote at an instruction path is not published: " + n);
  AW_TRY(BaseSnapshot own,
         snapshot_base_paths(in.clone, kAgentInstructionPaths, kAgentNestedNames));
  std::vector<std::string> expected;  // the head's own differ from the base branch's: no news
  return restore_base_paths(in.clone, own, expected);
}

}  // namespace

RoundsEnd run_rounds(const RoundsInput& in, UnitRecord& u) {
  const PhaseContext& ctx = in.ctx;
  std::optional<BaseSnapshot> base;  // the instruction paths every round starts from
  const bool elsewhere = instructions_elsewhere(ctx.target);
  if (elsewhere) {
    if (auto ok = put_other_instructions(in, base, u); !ok) {
      u.reason = fmt::format("clone lost before the first phase: {}", ok.error().message);
      in.save();
      return {false, UnitState::lost};
    }
  }
  int index = 0;  // each phase's own (the isolators name containers and reports by it)
  for (const auto& plan : plan_prelude(ctx.target)) {
    PhaseOutput out;
    bool when = plan.name == "when";
    PhaseVerdict v = run_one_phase(ctx, plan, index++, in.clone, u, when ? &out : nullptr);
    in.save();
    if (v == PhaseVerdict::ok) continue;
    if (when && v == PhaseVerdict::failed && out.exited) return skipped(out, u);
    return ended(v);
  }
  const int rounds = std::max(1, ctx.target.repo.rounds);
  const std::string first_task = in.task;
  HomeSnapshot home;
  if (rounds > 1) {
    auto snap = snapshot_home(ctx.paths.home);
    if (!snap) {
      u.reason = fmt::format("before agent round 1: {}", snap.error().message);
      in.save();
      return {false, UnitState::failed};
    }
    home = std::move(*snap);
  }
  std::vector<FailedCheck> failed;
  for (int round = 1; round <= rounds; ++round) {
    if (round > 1) {
      if (auto ok = between_rounds(in, round, failed, first_task, base, home, u); !ok) {
        u.reason = fmt::format("clone lost before agent round {}: {}", round, ok.error().message);
        in.save();
        return {false, UnitState::lost};
      }
      failed.clear();
    }
    bool last = round == rounds;
    for (const auto& plan : plan_round(ctx.target, ctx.paths, round)) {
      // A round with rounds left runs every check, so the next one sees all that failed.
      PhaseOutput out;
      bool check = !plan.agent;
      PhaseVerdict v =
          run_one_phase(ctx, plan, index++, in.clone, u, check && !last ? &out : nullptr);
      in.save();
      if (v == PhaseVerdict::ok) continue;
      if (check && !last && v == PhaseVerdict::failed && out.ended_itself) {
        failed.push_back({plan.name, out.outcome, out.tail});
        continue;
      }
      if (check && rounds > 1 && v == PhaseVerdict::failed)
        u.reason += fmt::format(" (all {} agent rounds spent)", rounds);
      return ended(v);
    }
    if (failed.empty()) {
      if (elsewhere) {
        if (auto ok = put_own_instructions_back(in, *base, u); !ok) {
          u.reason = fmt::format("clone lost after the last phase: {}", ok.error().message);
          in.save();
          return {false, UnitState::lost};
        }
      }
      return {true, UnitState::done};
    }
  }
  return {false, UnitState::failed};  // not reached: the last round ends above
}

}  // namespace aw
