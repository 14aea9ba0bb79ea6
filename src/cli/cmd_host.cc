// `awaywork host lock`: parse, call host_lock, print what it changed (or that nothing changed).
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_write.h"
#include "cli/cmd_host.h"
#include "config/config.h"
#include "config/host_env.h"
#include "host/lock.h"
#include "host/runner_user.h"

namespace aw {

namespace {

struct HostLockArgs {
  std::string runner, worker;
  std::vector<std::string> skip;
  bool for_image = false, this_machine = false;
};

// The walk may change hundreds of thousands of paths: a terminal gets the first few of them.
constexpr size_t kShownPerStep = 20;

std::string render_report(const LockReport& r, const LockOptions& o) {
  std::string s = fmt::format("awaywork host lock: runner {}, worker {}\n", o.runner, o.worker);
  for (const auto& n : r.notes) s += "  " + n + "\n";
  for (LockStep st : r.skipped)
    s += fmt::format("  SKIPPED {} (test only: --skip)\n", to_string(st));
  std::map<LockStep, size_t> shown, total;
  for (const auto& c : r.changes) ++total[c.step];
  for (const auto& c : r.changes) {
    if (shown[c.step]++ < kShownPerStep)
      s += fmt::format("  {}: {}\n", to_string(c.step), c.what);
    else if (shown[c.step] == kShownPerStep + 1)
      s += fmt::format("  {}: ... and {} more (--json lists every one)\n", to_string(c.step),
                       total[c.step] - kShownPerStep);
  }
  s += fmt::format("walked {} paths\n", r.walked);
  s += r.changes.empty() ? "nothing changed: the host was already locked\n"
                         : fmt::format("{} change(s)\n", r.changes.size());
  return s;
}

nlohmann::json report_json(const LockReport& r, const LockOptions& o) {
  nlohmann::json j{{"runner", o.runner},
                   {"worker", o.worker},
                   {"walked", r.walked},
                   {"changed", !r.changes.empty()},
                   {"changes", nlohmann::json::array()},
                   {"skipped", nlohmann::json::array()}};
  for (const auto& c : r.changes)
    j["changes"].push_back({{"step", to_string(c.step)}, {"what", c.what}});
  for (LockStep s : r.skipped) j["skipped"].push_back(to_string(s));
  j["notes"] = r.notes;
  return j;
}

int cmd_host_lock(const GlobalOptions& g, const HostLockArgs& a) {
  // The walk and the sudoers step reshape a whole machine: on someone's laptop by mistake, that
  // is their machine's modes and their own sudo rules.
  if (!a.for_image && !a.this_machine && host_kind(std::getenv) != HostKind::github_hosted) {
    fmt::print(stderr,
               "awaywork host lock: this is not a GitHub-hosted runner (GITHUB_ACTIONS=true and "
               "RUNNER_ENVIRONMENT=github-hosted are not both set; sudo drops them unless "
               "--preserve-env=GITHUB_ACTIONS,RUNNER_ENVIRONMENT is given). The lock clears "
               "world-writable bits on the whole root file system and comments out the runner's "
               "sudo rules: pass --for-image when building an image, or --this-machine to lock "
               "this machine anyway (docs/host-lock.md)\n");
    return kExitUsage;
  }
  LockOptions o;
  o.worker = a.worker;
  o.for_image = a.for_image;
  if (o.worker.empty()) {
    // The worker of the config awaywork will run with (its default without --config).
    auto cfg = load_given_config(g.config);
    if (!cfg) {
      fmt::print(stderr, "awaywork host lock: {}\n", cfg.error().message);
      return kExitUsage;
    }
    o.worker = cfg->worker_user;
  }
  for (const auto& s : a.skip) {
    auto step = parse_lock_step(s);
    if (!step) {
      fmt::print(stderr, "awaywork host lock: --skip: {}\n", step.error().message);
      return kExitUsage;
    }
    o.skip.insert(*step);
  }
  auto runner = find_runner(a.runner, std::getenv);
  if (!runner) {
    fmt::print(stderr, "awaywork host lock: {}\n", runner.error().message);
    return kExitUsage;
  }
  o.runner = *runner;
  auto r = host_lock(o);
  if (!r) {
    fmt::print(stderr, "awaywork host lock: {}\n", r.error().message);
    return kExitFailed;
  }
  fmt::print("{}", g.json ? json_text(report_json(*r, o), 2) + "\n" : render_report(*r, o));
  return kExitDone;
}

}  // namespace

void add_host_commands(CLI::App& app, GlobalOptions& g, std::optional<int>* exit_code) {
  auto* host = app.add_subcommand("host", "prepare the machine awaywork runs on (as root)");
  host->require_subcommand(1);
  auto a = std::make_shared<HostLockArgs>();
  auto* lock = host->add_subcommand(
      "lock", "harden a hosted runner or an image for isolation user (docs/host-lock.md)");
  lock->add_option("--runner", a->runner,
                   "the user awaywork runs as (default: SUDO_USER, else the owner of "
                   "$GITHUB_WORKSPACE or $RUNNER_TEMP)");
  lock->add_option("--worker", a->worker, "the worker user (default: the config's worker_user)");
  lock->add_flag("--for-image", a->for_image,
                 "building an image: leave the kernel check to where the image runs");
  lock->add_flag("--this-machine", a->this_machine,
                 "lock a machine that is not a GitHub-hosted runner (a self-hosted one, say)");
  lock->add_flag("--json", g.json, "print what changed as JSON");
  lock->add_option("--skip", a->skip, "test only: leave out a step (the leak tests' controls)")
      ->group("");
  lock->callback([&g, a, exit_code] { *exit_code = cmd_host_lock(g, *a); });
}

}  // namespace aw
