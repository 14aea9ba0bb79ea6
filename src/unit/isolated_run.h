// One command run inside the configured isolation exactly as a unit's agent phase would be: the
// same isolator (layout, ready, launcher, extra_env, after_phase, finish), the same environment
// built from nothing, the same runner. No repository, no record: `awaywork probe` uses it.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "isolate/sandbox/plan.h"
#include "proc/runner.h"
#include "unit/isolator.h"

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
  // (unit/isolator_user.h).
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

// What every sandboxed unit hides besides the config's list (awaywork's own config and state,
// the config file), with the owner's home: the unit's own folders are left empty.
SandboxPaths sandbox_base_paths(const Config& cfg);
// For the record's sandbox note: "; of the homes in view (read-only): ~/.cargo (toolchain: ...)"
// or "" when nothing of a home is (the unit's own folders are not counted).
std::string view_note(const SandboxPlan& plan);
// The same with the target's programs (setup, agent, checks), whose toolchains the view lends.
struct Target;
SandboxPaths sandbox_unit_paths(const Config& cfg, const Target& target);

}  // namespace aw
