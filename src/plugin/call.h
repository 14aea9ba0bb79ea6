// One call of a plugin (issue 28, DESIGN.md section 13): the owner's program started as a separate
// process inside awaywork's OS sandbox built from its declaration and nothing else, given one
// JSON-RPC request on stdin, its one reply read back as hostile data, then killed and reaped.
//
// What the plugin has: its program's folder and its declared `read:` paths read-only, its own data
// folder (STATE/plugins/NAME/data, also its HOME) read-write, the system trees, a private /tmp;
// no network unless it declares hosts, and then only those, through awaywork's egress proxy; an
// environment built from nothing (PATH, HOME, TMPDIR, LANG, its declared `env:` names and its
// declared secrets by name, or, for a secret the config's `secrets:` gives injection rules, a
// placeholder while its egress proxy adds the value: plugin/injected_secrets.h); its memory and
// process limits and its time per call. Nothing else of the owner's: not the home, awaywork's
// config, state or database, nor any variable of awaywork or of a unit. A machine that cannot build
// that sandbox runs no plugin (there is no unsandboxed fallback), `plugins: {run: false}` runs none
// at all, and a plugin whose code or permissions changed since the owner approved them
// (plugin/approval.h) is refused. A plugin whose manifest says "runtime": "node" runs under Node's
// own permission model too, inside the same sandbox (plugin/node_runtime.h). Under isolation user
// the plugin runs as the worker, in the same sandbox built by the worker, its data folder one
// handed to the worker for the call (plugin/worker_call.h).
//
// A process per call, not one kept alive between calls: a notifier is called twice a unit, so the
// start costs little, and each call then begins from nothing, is held to its limits alone and ends
// with the runner's proof that none of its processes survive; the switch is read before each call.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "config/config.h"
#include "isolate/sandbox/plan.h"
#include "proc/runner.h"

namespace aw {

// Who runs a plugin under isolation user (PluginHost::worker; plugin/worker_call.h).
struct PluginWorker {
  std::string name;       // the config's worker_user
  std::string state_dir;  // where its lock is (STATE/worker-WORKER.lock)
  std::string helper;     // the awaywork the worker runs as `__sandbox-exec`; "" = this program
  // Told when a call is refused because a unit (another process's) holds the worker: not the
  // plugin's failure, only not now, before anything of it ran (watch defers a source's poll or
  // task_done to a later poll, watch/source_defer.h). Unset: the call's Error alone says so.
  std::function<void()> unit_busy = {};
};

// What awaywork's side lends every call: the owner's switch, what every sandbox hides, where the
// plugins' folders live and how a declared secret's value is found.
struct PluginHost {
  bool run = false;         // plugins.run: false = no plugin code runs at all
  SandboxPaths base;        // the owner's home, awaywork's config and state (hidden), root_owner
  std::string plugins_dir;  // STATE/plugins: NAME/data (the plugin's), NAME/egress.log
  // The value of a secret the plugin declares, by its name (the secret store; an Error when it is
  // not there). Unset: a plugin that declares a secret is refused.
  std::function<Result<std::string>(const std::string& name)> secret;
  // The config's `secrets:` with injection rules, by name (issue 27): a declared secret found here
  // is added by the plugin's egress proxy for the rules' hosts in its net:, never handed to it.
  std::map<std::string, std::vector<InjectRule>> inject;
  char** environ_from = nullptr;  // where declared env: names are read; nullptr = environ
  // isolation user: each call runs as this worker (plugin/worker_call.h); none = as the owner.
  std::optional<PluginWorker> worker;
  // Tests only: names the egress proxy resolves to these addresses, loopback allowed (never from
  // configuration).
  std::map<std::string, std::string> test_static_hosts;
  // Tests only: a CA file the egress proxy trusts for a bound host's upstream TLS.
  std::string test_upstream_ca;
};

// From the owner's config: its switch, its sandbox's hidden paths, STATE/plugins.
PluginHost plugin_host(const Config& cfg);

struct PluginCall {
  nlohmann::json result;  // the reply's "result" object: hostile data, to be checked by the caller
  PhaseResult phase;      // how the process ended (exit 0), and the proof none of it survives
  std::string stderr_tail;  // what it printed on stderr last, made inert
};

// Run one call. An Error when plugins are off, the plugin is not approved as it is now, the
// sandbox cannot be built, a declared secret is missing, or the plugin timed out, was killed,
// exited non-zero or answered anything but a valid reply (each names the plugin and what
// happened; the plugin's own words only made inert).
Result<PluginCall> call_plugin(const PluginConfig& plugin, const PluginHost& host,
                               std::string_view method, const nlohmann::json& params);

}  // namespace aw
