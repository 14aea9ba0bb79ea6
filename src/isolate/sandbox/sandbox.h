// The OS sandbox: awaywork's own in-process launcher (the nsjail model). It plugs into the process
// runner as a Launcher: called in the runner's keeper, it clones the phase's init into new user,
// mount, pid, ipc, uts, cgroup and (unless network is host) net namespaces, builds the filesystem
// view with pivot_root, applies limits, drops every privilege, then execs the phase's argv.
//
// How a unit uses it (the lead's side):
//   SandboxPlan plan = *make_plan(config.sandbox, SandboxPaths{clone, home, {state...}, owner_home,
//                                                          config_dir, state_dir, {secret files}});
//   plan.cgroup_name = unit_id;                       // one set of v1 groups per unit
//   auto netns = UnitNetns::create();                 // root: one network namespace per unit
//   if (netns) plan.unit_netns_fd = netns->fd();
//   std::unique_ptr<EgressProxy> proxy;               // network: allowlist only (proxy/)
//   if (plan.network == Network::allowlist) { proxy = *EgressProxy::start({sock, plan.allow, log});
//                                             plan.proxy_socket = sock; }
//   auto decision = sandbox_decision(plan);           // required: error; preferred/off: reason
//   if (!decision) refuse the unit; else if (!decision->empty()) record it and run unsandboxed;
//   else spec.launcher = make_sandbox_launcher(plan);  // for each phase's PhaseSpec
//   ... after each phase (or at the unit's end): sweep_sandbox_cgroups();
#pragma once

#include <string>
#include <vector>

#include "isolate/sandbox/plan.h"
#include "proc/runner.h"

namespace aw {

// Protections a mutation test may turn off one at a time (SandboxPlan::disable_for_test).
inline const std::vector<std::string> kProtections = {
    "netns",          // no network namespace: host loopback and host network reachable
    "pidns",          // no pid namespace: host /proc, leftovers survive the phase
    "view",           // the old view: the host's whole "/" read-only (homes included)
    "rootonly",       // files only root may read not masked (matters when the owner is root)
    "hidden",         // hidden paths not masked
    "readonly",       // "/" stays writable where the host allows it
    "tmp",            // the host's /tmp instead of a private one
    "run",            // the host's /run (session bus, docker.sock) instead of an empty one
    "seccomp",        // no syscall filter
    "landlock",       // no landlock ruleset
    "nnp",            // no no_new_privs and capabilities kept
    "setsid",         // no new session (TIOCSTI into the caller's terminal)
    "limits",         // no cgroup limits
    "diewithparent",  // the phase outlives a killed keeper
};

// Start the phase described by req inside the sandbox. Returns the pid of the namespace's init,
// a direct child of the caller: it reaps, forwards SIGTERM/SIGINT/SIGHUP, and exits with the main
// process's status (128+N when killed by signal N); the namespace and everything left in it dies
// with it. Errors of any setup step (with the step's name) come back before the phase runs.
Launcher make_sandbox_launcher(const SandboxPlan& plan);

// An empty network namespace (loopback up) for one unit. Creating and destroying a network
// namespace is the slow, kernel-serialized part of a launch; a unit keeps one and each phase
// joins it (set SandboxPlan::unit_netns_fd = fd()). Needs root (CAP_SYS_ADMIN over the owner's
// namespaces): an unprivileged owner gets a fresh namespace per phase instead.
class UnitNetns {
 public:
  static Result<UnitNetns> create();
  UnitNetns(UnitNetns&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  UnitNetns& operator=(UnitNetns&&) = delete;
  ~UnitNetns();
  int fd() const { return fd_; }

 private:
  explicit UnitNetns(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// One missing kernel feature or permission, with the command or setting that fixes it.
struct MissingFeature {
  std::string feature;
  std::string fix;
};

// What of the plan this machine cannot build (empty = everything). Tries the real thing (clones a
// throwaway child into the namespaces) instead of reading sysctls.
std::vector<MissingFeature> probe_sandbox(const SandboxPlan& plan);

// What doctor should say about a plan that is built but weaker than the default (network: host,
// no cgroup limits). Empty for the default plan.
std::vector<std::string> sandbox_warnings(const SandboxPlan& plan);

// Policy: ok when the plan can be built; else an error naming each missing feature and its fix.
Status sandbox_available(const SandboxPlan& plan);

// What the record says for mode off/preferred when the sandbox is not used: "" when it is used,
// else "unsandboxed: <reason>". Error (for required) when it cannot be used.
Result<std::string> sandbox_decision(const SandboxPlan& plan);

// The landlock ABI of this kernel (0 = none).
int landlock_abi();

// Remove the v1 cgroups the launcher made (only empty ones can be removed, so a running phase
// keeps its own). Call after every phase, or when the unit ends for plans with a cgroup_name.
Status sweep_sandbox_cgroups();

// For plans with a cgroup_name: after every phase, instead of sweep_sandbox_cgroups, how many
// processes the kernel's OOM killer ended at the unit's v1 memory limit during that phase (its
// memory.oom_control oom_kill; the group outlives a phase only when a sweep could not remove it,
// so the count is taken against what it said after the last sweep). cgroup v2 limits live in the
// phase's own group, whose count the runner reports (PhaseResult::oom_kills).
class SandboxOomCount {
 public:
  explicit SandboxOomCount(std::string cgroup_name) : name_(std::move(cgroup_name)) {}
  int sweep_after_phase();

 private:
  std::string name_;
  int seen_ = 0;
};

}  // namespace aw
