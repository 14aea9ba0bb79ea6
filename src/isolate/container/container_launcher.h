// A phase inside a fresh container: the launcher's child execs the engine's client
// (`docker run --rm -i --name NAME ... IMAGE argv...`), which becomes the phase's main process.
// The container itself is not a child of the keeper: after EVERY phase, and before anything reads
// the clone, the caller must call remove_container (engine.h) with the same name.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/container/engine.h"
#include "proc/runner.h"

namespace aw {

struct ContainerPlan {
  Engine engine;
  std::string image;
  std::string clone;       // absolute; bind-mounted read-write at the same path
  std::string plugin_dir;  // absolute, or ""; bind-mounted read-only at the same path
  uid_t uid = 0;           // the owner's; the container runs as uid:gid
  gid_t gid = 0;
  std::string home;  // HOME inside; "" = <clone>/.away/home (must exist: prepare_home)
  std::string unit;  // label awaywork.unit=<unit>, to find leftovers after a crash
  // Set inside by value on the client's argv: placeholders only (AWAYWORK_UNIT...), never a
  // secret. HOME is added from `home`.
  std::vector<std::pair<std::string, std::string>> placeholders;
  // Passed by name (`-e NAME`); the value is taken from the ExecRequest's env and put in the
  // client's environment only. Names that steer the client itself (PATH, HOME, DOCKER_*, ...) are
  // refused.
  std::vector<std::string> secret_names;
  uint64_t memory_bytes = 4ull << 30;
  int pids = 512;
  double cpus = 0;  // 0 = no CPU quota
  Network network = Network::none;
  // The unit's bridge container (egress_bridge.h), whose network namespace the phase joins
  // (`--network=container:NAME`): its only ways out are the bridge's ports (the egress proxy's,
  // the inference proxy's). Required for allowlist; optional for none (then the bridge relays
  // only the inference proxy); refused for host.
  std::string proxy_network;
  // A seccomp profile file (seccomp_profile.h) for `--security-opt seccomp=`; "" = the engine's
  // own default.
  std::string seccomp_profile;
  // What awaywork itself lends read-only, {source, target}: the static probe of `awaywork probe`,
  // a CLI's managed settings (written by awaywork in the run folder), the agent's plugin folders.
  std::vector<std::pair<std::string, std::string>> readonly_files;
  // Test-only: engine flags added before the image (a mount of the owner's home, a capability),
  // so that a probe test can show the suite sees that leak. Never set from configuration.
  std::vector<std::string> weaken_for_test;
};

// The client's argv for a phase (what the launcher execs); `req` gives the command, the working
// folder (inside the clone) and the values of secret_names. Error on a plan that would mount or
// pass something it must not.
Result<std::vector<std::string>> container_run_argv(const ContainerPlan& plan,
                                                    const std::string& container_name,
                                                    const ExecRequest& req);

// The client's environment: the engine's client_env plus NAME=value for each secret name set in
// req.env. This is the only place a secret value exists outside the container.
std::vector<std::string> container_client_env(const ContainerPlan& plan, const ExecRequest& req);

// A Launcher (proc/runner.h) for one phase. Validates the plan now; the returned launcher forks a
// child that joins the phase's cgroup and execs the engine client.
Result<Launcher> make_container_launcher(const ContainerPlan& plan, std::string container_name);

// <clone>/.away/home, made fresh (anything already there is removed, without following links)
// and 0700; a link or non-folder at <clone>/.away is an error. Call once per unit, before its first
// phase, after the clone is made. Returns its path.
Result<std::string> prepare_home(const std::string& clone);

// The hardening every container of awaywork gets, whatever it runs (phases, doctor's probes):
// no capabilities, no-new-privileges, never a pull, no log kept by the engine, and for podman the
// ulimits that fit.
std::vector<std::string> hardening_args(const Engine& e);

// `--ulimit` values that fit under awaywork's own hard limits (podman's defaults exceed them on
// some machines): {"nofile=N:N", "nproc=M:M"}.
std::vector<std::string> fitting_ulimits();

}  // namespace aw
