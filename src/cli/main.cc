// awaywork: run AI coding agents unattended, isolated, and publish only checked outputs.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <utility>

#include "cli/cmd_host.h"
#include "cli/cmd_plugin.h"
#include "cli/cmd_probe.h"
#include "cli/cmd_secret.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "git/git.h"
#include "isolate/mcp_relay.h"
#include "isolate/probe/probe_user.h"
#include "isolate/sandbox/sandbox_exec.h"
#include "isolate/user/leftovers.h"

namespace {

// The hidden helpers: awaywork run as another program's half, each owned by its room. Tried in
// order before any option parsing (their arguments are passed on exactly); each answers nullopt
// when this run is not its own.
using Helper = std::optional<int> (*)(int argc, char** argv);
const Helper kHelpers[] = {
    // Run by git as GIT_ASKPASS during apply (git/askpass.cc): answer and exit, nothing else.
    [](int argc, char** argv) -> std::optional<int> {
      if (!aw::askpass_mode()) return std::nullopt;
      return aw::askpass_main(argc, argv);
    },
    // The halves run as the worker of isolation user.
    aw::sandbox_exec_main,  // __sandbox-exec: the sandbox built as the worker (isolate/sandbox)
    aw::probe_worker_main,  // __probe-worker: the leak probes' worker half
    aw::sweep_worker_main,  // __sweep-worker: the worker's leftovers removed (isolate/user)
    // Run by the agent's CLI inside the unit: a server run outside, reached (isolate/mcp_relay.h).
    aw::mcp_relay_main,  // __mcp-relay
};

}  // namespace

int main(int argc, char** argv) {
  using namespace aw;
  for (Helper helper : kHelpers)
    if (auto rc = helper(argc, argv)) return *rc;
  CLI::App app{"awaywork: run coding agents unattended, isolated; publish only checked outputs"};
  app.set_version_flag("--version", fmt::format("awaywork {} (commit {})", kVersion, kCommit));
  app.require_subcommand(1);
  // Global options may also follow the subcommand (`awaywork run --config F`): what a subcommand
  // does not know falls through to here. Set before the subcommands, which inherit it.
  app.fallthrough();
  GlobalOptions g;
  app.add_option("--config", g.config, "config file (default ~/.config/awaywork/config.yml)");
  app.add_flag("--json", g.json, "print JSON (the commands that have it)");

  RunOptions r;
  auto* run = app.add_subcommand("run", "run one unit now");
  auto* repo_opt = run->add_option("--repo", r.repo, "repository: a name from `repos:` or a path");
  auto* issue_opt =
      run->add_option("--issue", r.issue,
                      "take the task from a forge issue: NAME#N (a repos: name) or OWNER/REPO#N")
          ->excludes(repo_opt);
  run->add_option("--pr", r.pr,
                  "follow up awaywork's own pull request (its review comments): NAME#N or "
                  "OWNER/REPO#N; a GitLab merge request (its discussions): NAME!N")
      ->excludes(repo_opt)
      ->excludes(issue_opt);
  run->add_option("--prompt", r.prompt, "the task text");
  run->add_option("--prompt-file", r.prompt_file, "read the task from a file");
  run->add_option("--agent", r.agent, "agent name from `agents:`");
  run->add_option("--base", r.base, "base branch, tag or commit");
  run->add_option("--instructions-from", r.instructions_from,
                  "the agent's instruction and settings files from this ref, not the base's");
  run->add_option("--profile", r.profile,
                  "environment profile from `profiles:` (default: the repo's, else the agent's)");
  run->add_option("--unit-seconds", r.unit_seconds,
                  "time limit of the unit (overrides unit_minutes)")
      ->check(CLI::Range(1, 7 * 24 * 3600));
  run->add_flag("--no-progress-comment", r.no_progress_comment,
                "with --issue: post no progress comment (watch's claim comment is its units')");
  run->add_option("--artifact", r.artifact,
                  "check but do not publish; write the unit's artifact to this new folder "
                  "(`apply --from DIR` publishes it)");
  run->add_flag("--json", g.json, "print the record as JSON");

  std::string replay_id;
  bool replay_latest = false;
  auto* replay = app.add_subcommand("replay", "run a recorded unit's task again, as a new unit");
  replay->add_option("id", replay_id, "unit id (or a unique prefix)")->required();
  replay->add_flag("--latest", replay_latest,
                   "start from the base branch's head, not the recorded base commit");
  replay->add_flag("--json", g.json, "print the new unit's record as JSON");

  auto* units = app.add_subcommand("units", "list recorded units");
  units->add_flag("--json", g.json, "print JSON");

  std::string id;
  auto* show = app.add_subcommand("show", "show one unit's record");
  show->add_option("id", id, "unit id (or a unique prefix)")->required();
  show->add_flag("--json", g.json, "print JSON");

  CheckOptions c;
  auto* check = app.add_subcommand("check", "run the output check on a patch (and requests)");
  check->add_option("--bounds", c.bounds, "bounds file (YAML)");
  check->add_option("--patch", c.patch, "the patch (git diff output)");
  check->add_option("--from", c.from, "an artifact folder (`run --artifact`), checked again");
  check->add_option("--requests", c.requests, "requests.jsonl");
  check->add_flag("--json", g.json, "print the verdict as JSON");

  std::string apply_id;
  auto* apply = app.add_subcommand("apply", "publish a recorded, accepted unit (idempotent)");
  std::string apply_from;
  apply->add_option("id", apply_id, "unit id (or a unique prefix)");
  apply->add_option("--from", apply_from, "an artifact folder: checked again, then published");
  apply->add_flag("--json", g.json, "print JSON");

  bool print_setup = false;
  std::string export_id, export_dir;
  auto* exp = app.add_subcommand("export",
                                 "write a recorded unit's artifact (patch, requests, "
                                 "verdict, manifest) to a new folder");
  exp->add_option("id", export_id, "unit id (or a unique prefix)")->required();
  exp->add_option("dir", export_dir, "the folder to create")->required();
  exp->add_flag("--json", g.json, "print JSON");

  auto* doctor =
      app.add_subcommand("doctor", "check every prerequisite of the configured isolation");
  doctor->add_flag("--print-setup", print_setup,
                   "print the whole setup (worker user, deny lists, sudoers) to paste as root");
  doctor->add_flag("--json", g.json, "print JSON");

  ServeCliOptions sv;
  auto* serve = app.add_subcommand("serve", "the local API and the dashboard (docs/serve.md)");
  serve->add_option("--listen", sv.listen, "ADDRESS:PORT, loopback only (port 0 picks one)")
      ->default_str("127.0.0.1:0");
  serve->add_flag("--listen-anywhere", sv.anywhere,
                  "allow a non-loopback --listen address (the token is still required)");
  serve->add_flag("--json", g.json, "print where it listens as one JSON line");

  WatchCliOptions wo;
  auto* watch =
      app.add_subcommand("watch", "poll the forge and run admitted triggers (docs/watch.md)");
  watch->add_flag("--once", wo.once, "one pass; exit when the units it started have ended");
  watch->add_option("--log", wo.log, "append the JSON-lines event log here (default stderr)");

  auto* probe = app.add_subcommand(
      "probe", "run the leak suite inside the configured isolation, as an agent would be");
  probe->add_flag("--json", g.json, "print JSON");

  bool inside_json = false;
  std::string targets_file;
  auto* inside = app.add_subcommand("__probe-inside", "the inside half of probe");
  inside->group("");  // hidden from --help
  inside->add_flag("--json", inside_json, "print JSON");
  inside->add_option("targets", targets_file, "probe targets file")->required();
  std::optional<int> secret_exit;  // `secret set|list|rm` run inside parse (cli/cmd_secret.cc)
  add_secret_commands(app, g, &secret_exit);
  std::optional<int> host_exit;  // `host lock`, likewise (cli/cmd_host.cc)
  add_host_commands(app, g, &host_exit);
  std::optional<int> plugin_exit;  // `plugin approve|list`, likewise (cli/cmd_plugin.cc)
  add_plugin_commands(app, g, &plugin_exit);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  // Made absolute at once: the config's own paths (hidden, state) are checked as absolute, and
  // the sandbox hides this very file by its path.
  if (!g.config.empty()) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(g.config, ec);
    if (ec) {
      fmt::print(stderr, "awaywork: --config {}: cannot make it absolute: {}\n", g.config,
                 ec.message());
      return kExitUsage;
    }
    g.config = abs.lexically_normal().string();
  }
  // The commands: each subcommand and the one call that runs it (secret, host and plugin ran in
  // parse).
  const std::pair<const CLI::App*, std::function<int()>> commands[] = {
      {run, [&] { return cmd_run(g, r); }},
      {replay, [&] { return cmd_replay(g, replay_id, replay_latest); }},
      {units, [&] { return cmd_units(g); }},
      {show, [&] { return cmd_show(g, id); }},
      {check, [&] { return cmd_check(g, c); }},
      {apply, [&] { return cmd_apply(g, apply_id, apply_from); }},
      {exp, [&] { return cmd_export(g, export_id, export_dir); }},
      {doctor, [&] { return cmd_doctor(g, print_setup); }},
      {probe, [&] { return cmd_probe(g); }},
      {serve, [&] { return cmd_serve(g, sv); }},
      {watch, [&] { return cmd_watch(g, wo); }},
      {inside, [&] { return cmd_probe_inside(inside_json, targets_file); }},
  };
  for (const auto& [command, call] : commands)
    if (command->parsed()) return call();
  if (secret_exit) return *secret_exit;
  if (host_exit) return *host_exit;
  if (plugin_exit) return *plugin_exit;
  return kExitUsage;
}
