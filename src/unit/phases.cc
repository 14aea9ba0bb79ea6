// Running the phases of a unit: setup, agent, checks. Each is a fresh process tree started by the
// runner (proc/), contained and reaped there; after each, the clone's identity is proved and its
// git metadata restored before anything else happens.
#include <fmt/ranges.h>

#include <optional>

#include "base/fs.h"
#include "proc/runner.h"
#include "unit/agent_session.h"
#include "unit/round_task.h"
#include "unit/steps.h"
#include "unit/unit_id.h"
#include "unit/watchdog.h"

namespace aw {

namespace {

// `{prompt_file}` in an agent's argv becomes the prompt file's path (file mode only).
Argv substitute(const Argv& argv, const std::string& prompt_file) {
  Argv out;
  for (auto a : argv) {
    for (size_t p; (p = a.find("{prompt_file}")) != std::string::npos;)
      a.replace(p, 13, prompt_file);
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> phase_env(const PhaseContext& ctx, const PhasePlan& plan) {
  bool file = plan.agent && ctx.target.agent.prompt == PromptMode::file;
  const std::vector<std::string> none;
  // The agent phase also gets its provider's variables (the proxy's URL and run token, its
  // per-unit state folders), which win over the profile's.
  EnvPairs pairs = ctx.profile.env();
  if (plan.agent && ctx.agent)
    pairs.insert(pairs.end(), ctx.agent->env().begin(), ctx.agent->env().end());
  return unit_env(ctx.paths, ctx.unit_id, plan.name, ctx.isolator,
                  plan.agent ? ctx.target.agent.env : none, file ? ctx.paths.prompt_file : "",
                  pairs);
}

PhaseRecord to_record(const PhasePlan& plan, const std::string& started, const PhaseResult& r) {
  static constexpr const char* kEnds[] = {"exited", "signaled", "timed_out", "cancelled",
                                          "failed_to_start"};
  PhaseRecord p;
  p.name = plan.name;
  p.argv = plan.argv;
  p.started_at = started;
  p.duration_ms = r.duration.count();
  p.end = kEnds[static_cast<int>(r.end)];
  p.exit_code = r.exit_code;
  p.signal = r.signal;
  p.leftovers_killed = r.leftovers_killed;
  p.leftover_names = r.leftover_names;
  p.containment = r.containment;
  p.outcome = describe(r);
  return p;
}

PhaseVerdict verdict_of(const PhasePlan& plan, const PhaseResult& r, UnitRecord& u) {
  switch (r.end) {
    case PhaseEnd::exited:
      if (r.exit_code == 0) return PhaseVerdict::ok;
      u.reason = fmt::format("{} phase failed: exit {} ({})", plan.name, r.exit_code,
                             fmt::join(plan.argv, " "));
      return PhaseVerdict::failed;
    case PhaseEnd::signaled:
      u.reason = fmt::format("{} phase failed: {}", plan.name, describe(r));
      return PhaseVerdict::failed;
    case PhaseEnd::failed_to_start:
      u.reason = fmt::format("{} phase could not start: {}", plan.name, r.start_error);
      return PhaseVerdict::failed;
    case PhaseEnd::timed_out:
      u.reason = fmt::format("{} phase {}", plan.name, describe(r));
      return PhaseVerdict::timed_out;
    case PhaseEnd::cancelled:
      u.reason = fmt::format("interrupted during the {} phase", plan.name);
      return PhaseVerdict::cancelled;
  }
  return PhaseVerdict::failed;
}

// The cgroup's own count, not a guess from SIGKILL: a phase the OOM killer hit says so first.
void out_of_memory(const PhasePlan& plan, int kills, PhaseVerdict v, UnitRecord& u) {
  if (kills <= 0) return;
  std::string what = fmt::format(
      "out of memory: the kernel's OOM killer ended {} process(es) of the {} phase at its memory "
      "limit (sandbox.limits.memory; the cgroup's oom_kill count)",
      kills, plan.name);
  if (v == PhaseVerdict::failed)
    u.reason = fmt::format("{} phase failed: {}; {}", plan.name, what, u.reason);
  else
    u.notes.push_back(what);
}

// The isolator's side of a phase failed: the unit cannot go on and is treated as lost.
PhaseVerdict isolation_failed(const PhasePlan& plan, const char* when, const Error& e,
                              UnitRecord& u) {
  std::string_view why = e.message;
  for (std::string_view prefix : {"unit lost: ", "clone lost: "})
    if (why.substr(0, prefix.size()) == prefix) why.remove_prefix(prefix.size());
  u.reason = fmt::format("clone lost {} the {} phase: {}", when, plan.name, why);
  return PhaseVerdict::lost;
}

// The record of a phase that ran, with a note when it left processes behind.
void record_phase(const PhaseContext& ctx, PhaseRecord rec, UnitRecord& u) {
  if (rec.leftovers_killed > 0)
    u.notes.push_back(
        fmt::format("{} phase left {} process(es) running after it ended ({}); "
                    "killed, and none survived",
                    rec.name, rec.leftovers_killed, fmt::join(rec.leftover_names, ", ")));
  ctx.obs.phase_ended(rec);
  u.phases.push_back(std::move(rec));
}

}  // namespace

std::vector<PhasePlan> plan_prelude(const Target& t) {
  std::vector<PhasePlan> out;
  if (!t.repo.setup.empty()) out.push_back({"setup", t.repo.setup, false});
  if (!t.repo.when.empty()) out.push_back({"when", t.repo.when, false});
  return out;
}

std::vector<PhasePlan> plan_round(const Target& t, const UnitPaths& paths, int round) {
  bool loops = t.repo.rounds > 1;
  std::vector<PhasePlan> out;
  out.push_back({loops ? fmt::format("agent {}", round) : "agent",
                 substitute(t.agent.command, paths.prompt_file), true});
  for (size_t i = 0; i < t.repo.checks.size(); ++i)
    out.push_back({round > 1 ? fmt::format("check {} (round {})", i + 1, round)
                             : fmt::format("check {}", i + 1),
                   t.repo.checks[i], false});
  return out;
}

std::vector<PhasePlan> plan_phases(const Target& t, const UnitPaths& paths) {
  std::vector<PhasePlan> out = plan_prelude(t);
  for (auto& p : plan_round(t, paths, 1)) out.push_back(std::move(p));
  return out;
}

PhaseVerdict run_one_phase(const PhaseContext& ctx, const PhasePlan& plan, int index,
                           const Clone& clone, UnitRecord& u, PhaseOutput* out) {
  ctx.obs.phase_started(u, plan.name);
  if (auto ok = ctx.isolator.before_phase(); !ok)
    return isolation_failed(plan, "before", ok.error(), u);
  auto launcher = ctx.isolator.launcher(plan, index);
  if (!launcher) {
    u.reason =
        fmt::format("{} phase could not be started: {}", plan.name, launcher.error().message);
    return PhaseVerdict::failed;
  }
  ctx.transcript.heading(fmt::format("{}: {}", plan.name, fmt::join(plan.argv, " ")), plan.name);
  auto left = ctx.deadline - std::chrono::steady_clock::now();
  PhaseSpec spec;
  spec.name = plan.name;
  spec.argv = plan.argv;
  spec.env = phase_env(ctx, plan);
  spec.cwd = clone.work;
  if (plan.agent && ctx.target.agent.prompt == PromptMode::stdin_pipe) spec.stdin_data = ctx.prompt;
  spec.timeout = std::max(std::chrono::milliseconds(1),
                          std::chrono::duration_cast<std::chrono::milliseconds>(left));
  AgentSession* events = plan.agent ? ctx.agent : nullptr;
  std::optional<OutputTail> tail;
  if (out) tail.emplace(ctx.literals ? *ctx.literals : ctx.profile.secret_values());
  spec.on_output = [&ctx, events, &tail](Stream stream, std::string_view bytes) {
    uint64_t at = ctx.transcript.size();  // where these bytes go in the log, for the steps
    ctx.transcript.write(bytes);
    if (events && stream == Stream::out) events->feed(bytes, at);
    if (tail) tail->feed(bytes);
  };
  // The redactor holds a chunk's last bytes in case a secret spans chunks: once the phase is
  // quiet they are written (all but a secret's possible first bytes), for the live log.
  spec.on_quiet = [&ctx] { ctx.transcript.settle(); };
  std::string stopped;  // the watchdog's reason, when it stopped the phase
  std::string lost;     // the isolation's reason to lose the unit, when it stopped the phase
  spec.cancelled = [&ctx, &stopped, &lost] {
    if (auto why = ctx.isolator.lost_while_running()) {
      lost = *why;
      return true;
    }
    if (ctx.watchdog)
      if (auto why = ctx.watchdog->poll()) {
        stopped = *why;
        return true;
      }
    return ctx.obs.cancelled();
  };
  spec.launcher = std::move(*launcher);
  std::string started = iso_now();
  PhaseRecord now;
  now.name = plan.name;
  now.argv = plan.argv;
  now.started_at = started;
  u.current_phase = std::move(now);
  if (ctx.save) ctx.save();
  auto result = run_phase(spec);
  u.current_phase.reset();  // saved with the phase's record, after the checks below
  std::string said;         // the agent's last error event, for a failed phase's reason
  if (events) {
    events->revoke();
    said = events->phase_over();
  }
  ctx.transcript.settle();  // the phase's end is a pause too: its last line shows at once
  ctx.transcript.flush();
  if (result) {
    PhaseRecord rec = to_record(plan, started, *result);
    rec.secrets = ctx.profile.secret_names();
    if (events)
      for (auto& n : events->credential_names()) rec.secrets.push_back(std::move(n));
    record_phase(ctx, std::move(rec), u);
  }
  std::vector<std::string> repairs;
  auto after = ctx.isolator.after_phase(index, repairs);
  if (!lost.empty()) {
    u.reason = fmt::format("clone lost in the {} phase: {}; nothing is collected from it{}",
                           plan.name, lost, after ? "" : " (" + after.error().message + ")");
    return PhaseVerdict::lost;
  }
  if (!after) return isolation_failed(plan, "after", after.error(), u);
  if (!result) {
    // The runner could not prove the phase's processes gone: nothing more may run.
    u.reason = fmt::format("{} phase: {}", plan.name, result.error().message);
    return PhaseVerdict::failed;
  }
  if (auto ok = verify_and_restore(clone, repairs); !ok) {
    u.reason = fmt::format("clone lost after the {} phase: {}", plan.name, ok.error().message);
    return PhaseVerdict::lost;
  }
  for (auto& r : repairs) u.notes.push_back(fmt::format("after {}: {}", plan.name, r));
  if (result->end == PhaseEnd::cancelled && !stopped.empty()) {
    u.reason = fmt::format("{} phase stopped by the watchdog: {}", plan.name, stopped);
    return PhaseVerdict::failed;
  }
  if (out) {
    out->ended_itself = result->end == PhaseEnd::exited || result->end == PhaseEnd::signaled;
    out->exited = result->end == PhaseEnd::exited;
    out->exit_code = result->exit_code;
    out->outcome = result->end == PhaseEnd::exited ? fmt::format("exit {}", result->exit_code)
                                                   : describe(*result);
    out->tail = tail->finish();
  }
  PhaseVerdict v = verdict_of(plan, *result, u);
  out_of_memory(plan, result->oom_kills + *after, v, u);
  if (v != PhaseVerdict::ok && !said.empty()) u.reason += ": the agent said: " + said;
  return v;
}

}  // namespace aw
