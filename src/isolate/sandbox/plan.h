// What one sandboxed phase may see and do, with every path already resolved on the host side.
// Built from the owner's SandboxConfig plus the unit's paths by make_plan; the launcher only reads
// it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

// The unit's own places, as the prepare step made them.
struct SandboxPaths {
  std::string clone;                        // runs/<unit>/work (read-write)
  std::string home;                         // the unit's fresh HOME (read-write)
  std::vector<std::string> provider_state;  // per-unit provider folders (read-write)
  std::string owner_home;                   // for "~/" in hidden: and the built-in secret list
  std::string config_dir;                   // awaywork's config folder (always hidden)
  std::string state_dir;                  // awaywork's state folder: database, runs (always hidden)
  std::vector<std::string> secret_files;  // awaywork's secret store, key file... (always hidden)
  // The phases' programs (setup, agent, checks: argv[0] each) and the PATH they resolve in: a
  // program or PATH entry outside the system trees (an nvm, pyenv, cargo or ~/.local install)
  // has its install's own folder lent read-only (view.cc).
  std::vector<std::string> programs;
  std::string path_value;
  // The phase runs with root's uid (the owner is root): files only root may read are masked.
  bool root_owner = false;
};

// The system trees a view binds (DESIGN.md section 3; docs/sandbox.md lists them and why).
const std::vector<std::string>& system_trees();

struct SandboxPlan {
  SandboxMode mode = SandboxMode::required;
  Network network = Network::none;
  std::vector<std::string> allow;  // for allowlist: enforced by the EgressProxy (proxy/)
  // network: allowlist: the running EgressProxy's unix socket, and the port its bridge listens on
  // inside (HTTP_PROXY/HTTPS_PROXY point there; landlock lets TCP connect reach only it).
  std::string proxy_socket;
  uint16_t proxy_port = 3128;
  // More unix sockets outside, each bridged onto 127.0.0.1:port inside in network none and
  // allowlist (the inference proxy): a network-none agent reaches these and nothing else, and
  // landlock's TCP connect rule allows exactly these ports (plus the egress proxy's in allowlist).
  struct Bridge {
    std::string socket;
    uint16_t port = 0;
  };
  std::vector<Bridge> bridges;
  // The system's own trees, bound read-only at their paths (a link, as usr-merged /bin, is made
  // again as the same link). Nothing else of the host is in the view but what is listed below.
  std::vector<std::string> system = system_trees();
  std::vector<std::string> writable;  // absolute, link-free paths bound read-write
  std::vector<std::string> hidden;    // absolute paths masked where a bound tree reaches them
  // Existing files and folders of the bound trees only root may read (masked: see view.cc).
  std::vector<std::string> root_only;
  // Single files or folders awaywork itself lends a phase read-only (never from the config): the
  // agent's program when it lives in the host's /tmp (private inside), the unit's prompt file.
  // Bound at target from source (the link-free real path); kept reachable below a hidden folder.
  // Also what awaywork found the phase needs, and the owner's `sandbox.readable` paths; `why`
  // says which, for doctor and the record ("program", "prompt", "toolchain: node", "readable").
  struct ReadOnly {
    std::string source, target;
    std::string why;
  };
  std::vector<ReadOnly> readable;
  Limits limits;
  bool apply_limits = true;  // false: no cgroup limits (an unprivileged owner has none)
  // Names the unit's cgroup v1 groups (one per unit, reused by each phase; the lead removes them
  // with sweep_sandbox_cgroups when the unit ends). Empty: one group per launch.
  std::string cgroup_name;
  // An empty network namespace kept for the whole unit (see UnitNetns in sandbox.h), joined by
  // every phase instead of creating one each time; -1 = a fresh one per phase.
  int unit_netns_fd = -1;
  std::string hostname = "awaywork";
  std::string owner_home;  // what "too broad to lend" is measured against (view.cc)
  // Test-only: names of protections to leave out, so that a probe can show it would see the leak
  // (mutation tests). Set only by a test's own plan, in its own process: never from configuration,
  // and never read from a plan's JSON (plan_json.h). Names: see kProtections in sandbox.h.
  std::set<std::string> disable_for_test;

  bool enabled(const std::string& protection) const {
    return disable_for_test.count(protection) == 0;
  }
};

// Every socket bridged into the plan's network namespace: plan.bridges, plus the egress proxy's
// in network allowlist. Empty in network host (there is no namespace to bridge into).
std::vector<SandboxPlan::Bridge> active_bridges(const SandboxPlan& plan);

// Lend the phase's program read-only (plan.readable) when the view would not have it: alone when
// it lives where the view is private (/tmp, /run, /dev/shm), else its install's folder (an npm
// prefix, the parent of its bin folder); never from a hidden place. argv0 without a '/' is looked
// up in path_value (the phase's PATH).
void lend_program(const std::string& argv0, const std::string& path_value, SandboxPlan& plan);

// The secret folders every sandbox hides, relative to the owner's home (DESIGN.md section 3).
const std::vector<std::string>& builtin_hidden_in_home();

// Resolve config + unit paths into a plan: "~/" expanded against owner_home, links in existing
// paths resolved (a hidden link hides its target too), awaywork's own folders always hidden,
// toolchains and `readable:` paths lent, root-only files listed (view.cc).
Result<SandboxPlan> make_plan(const SandboxConfig& config, const SandboxPaths& unit);

// What of the homes (the owner's, others', /root) a plan's view includes, one line each:
// "~/.nvm/versions/node/v20.1.0 (toolchain: node)", "~/notes (readable:)". Empty: nothing.
std::vector<std::string> home_in_view(const SandboxPlan& plan, const std::string& owner_home);

}  // namespace aw
