// The subcommands of `awaywork`. Each returns the process exit code.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "unit/publisher.h"  // OpenPublisher

namespace aw {

struct GlobalOptions {
  std::string config;  // --config; "" = the default path
  bool json = false;
};

struct RunOptions {
  std::string repo, prompt, prompt_file, agent, base, profile;
  std::string issue;  // --issue NAME#N or OWNER/REPO#N
  std::string pr;     // --pr NAME#N or OWNER/REPO#N: a follow-up of awaywork's pull request
  std::optional<int> unit_seconds;
  bool no_progress_comment = false;
  std::string artifact;  // --artifact DIR: check, do not publish, export the artifact there
  std::string instructions_from;  // --instructions-from REF: the agent's instruction files' ref
};

int cmd_run(const GlobalOptions& g, const RunOptions& o);

// `replay ID [--latest]`: a new unit with the recorded repository, base commit, task, agent and
// profile (--latest: the base branch's head instead of the commit), recorded with replay_of.
int cmd_replay(const GlobalOptions& g, const std::string& id, bool latest);

struct Config;
struct RunRequest;
class UnitObserver;
// What run and replay share: the unit run with progress on stderr and Ctrl-C, its summary (or
// record as JSON) printed, the exit code for its state. publishers: how its repository publishes
// (the forge's for a github: one); also: an observer told after the display (an issue's progress
// comment), or null.
int run_and_report(const GlobalOptions& g, const Config& cfg, const RunRequest& req,
                   const OpenPublisher& publishers, const std::function<bool()>& interrupted,
                   const char* command, const std::string& artifact = "",
                   UnitObserver* also = nullptr);
int cmd_units(const GlobalOptions& g);
int cmd_show(const GlobalOptions& g, const std::string& id);

struct CheckOptions {
  std::string bounds, patch, requests;
  std::string from;  // --from DIR: an artifact (unit/artifact.h), checked with the config's bounds
};
int cmd_check(const GlobalOptions& g, const CheckOptions& o);

// `apply ID [--json]`: publish a recorded unit whose verdict was accepted; a second apply finds
// its marker and does nothing. `apply --from DIR`: an artifact, checked again, then the same.
int cmd_apply(const GlobalOptions& g, const std::string& id, const std::string& from = "");

struct Applied;
// What an apply did, as `apply` prints it (text or --json).
void print_applied(const GlobalOptions& g, const std::string& id, const Applied& a);

// cmd_artifact.cc: `export ID DIR`, `check --from DIR`, `apply --from DIR` (docs/scale-out.md).
int cmd_export(const GlobalOptions& g, const std::string& id, const std::string& dir);
int cmd_check_artifact(const GlobalOptions& g, const CheckOptions& o);
int cmd_apply_artifact(const GlobalOptions& g, const std::string& dir);

// `doctor [--print-setup] [--json]`: exit 0 when every check passes, 1 otherwise.
int cmd_doctor(const GlobalOptions& g, bool print_setup);

// `serve`: the local API and dashboard until SIGINT/SIGTERM (docs/serve.md).
struct ServeCliOptions {
  std::string listen = "127.0.0.1:0";
  bool anywhere = false;
};
int cmd_serve(const GlobalOptions& g, const ServeCliOptions& o);

// `watch [--once] [--log FILE]`: poll the watched repositories and run their admitted triggers
// (docs/watch.md) until SIGTERM/SIGINT (exit 0), or one pass with --once.
struct WatchCliOptions {
  bool once = false;
  std::string log;  // "" = stderr
};
int cmd_watch(const GlobalOptions& g, const WatchCliOptions& o);

// Exit codes of `awaywork run` (docs/units.md, "Exit codes").
enum Exit : int {
  kExitDone = 0,
  kExitFailed = 1,
  kExitUsage = 2,
  kExitTimedOut = 3,
  kExitLost = 4,
  kExitRefused = 5,
  kExitSkipped = 6,  // the repository's `when:` found nothing to do
  kExitInterrupted = 130,
};

}  // namespace aw
