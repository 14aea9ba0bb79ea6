// One command run inside the configured isolation exactly as a unit's agent phase would be: the
// same isolator (layout, ready, launcher, extra_env, after_phase, finish), the same environment
// built from nothing, the same runner. No repository, no record: `awaywork probe` uses it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"
#include "isolate/sandbox/plan.h"
#include "proc/runner.h"

namespace aw {

struct IsolatedCommand {
  Argv argv;  // "{tmp}" in an argument becomes the phase's TMPDIR
  // After the folders exist, before the phase: the files the command needs (in paths.tmp, which
  // the phase can read), given the sandbox plan a unit would run under and the isolator's
  // sandbox_note ("sandboxed: ..." or "unsandboxed: <reason>").
  std::function<Status(const UnitPaths&, const SandboxPlan&, const std::string&)> prepare;
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
  // Makes the isolator (given the run's id) instead of make_isolator(cfg): `awaywork probe` under
  // isolation user builds one that lets doctor's leak-level failures through
  // (isolate/user/isolator_user.h).
  std::function<Result<std::unique_ptr<Isolator>>(const std::string& unit_id)> isolator;
};

struct IsolatedResult {
  std::string sandbox_note;  // as a unit's record would say it
  PhaseResult phase;
  std::string out, err;
};

// Error when the isolation refuses (sandbox: required on a machine that cannot build it) or the
// phase could not be run; a command that merely fails is a result. The run folder is removed.
Result<IsolatedResult> run_isolated(const Config& cfg, const IsolatedCommand& cmd);

}  // namespace aw
