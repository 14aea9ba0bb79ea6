// Policy: can this machine build the plan? Each check tries the real thing and, when it fails,
// names the missing feature and the fix.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "proc/runner.h"

namespace aw {
namespace {

// Clone a child into the namespaces; it reports nothing and exits. The exit tells.
bool can_clone(unsigned long flags) {
  long pid = ::syscall(SYS_clone, flags | SIGCHLD, nullptr, nullptr, nullptr, 0);
  if (pid < 0) return false;
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(static_cast<pid_t>(pid), &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The v2 tree's controllers ("memory pids cpu ..."): at /sys/fs/cgroup on a v2 machine, at its
// .../unified on a hybrid one; "" without a v2 tree.
std::string v2_controllers() {
  for (const char* f :
       {"/sys/fs/cgroup/cgroup.controllers", "/sys/fs/cgroup/unified/cgroup.controllers"}) {
    std::ifstream in(f);
    if (in) return std::string(std::istreambuf_iterator<char>(in), {});
  }
  return "";
}

// memory is a v1 hierarchy here and the v2 tree does not offer it: no delegation can help.
bool limits_v1_only() {
  struct stat st {};
  return ::stat("/sys/fs/cgroup/memory/memory.limit_in_bytes", &st) == 0 &&
         v2_controllers().find("memory") == std::string::npos;
}

// Can a phase's limits be set: cgroup v2 groups whose children get memory and pids (root's own
// tree, or a non-root owner's delegated group or systemd user scope), else cgroup v1 groups below
// our own, tried rather than assumed from euid 0 (a container's root gets read-only hierarchies).
// why: what the v1 try met, when it failed.
bool cgroup_writable(const SandboxPlan&, std::string& why) {
  std::string c = cgroup_sources().v2_controllers;
  if (c.find("memory") != std::string::npos && c.find("pids") != std::string::npos) return true;
  auto v1 = probe_v1_limits();
  if (v1) return true;
  why = v1.error().message;
  return false;
}

}  // namespace

std::vector<MissingFeature> probe_sandbox(const SandboxPlan& plan) {
  std::vector<MissingFeature> missing;
  if (!can_clone(CLONE_NEWUSER))
    missing.push_back(
        {"user namespaces",
         "sysctl -w kernel.unprivileged_userns_clone=1 user.max_user_namespaces=15000 "
         "(and kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu)"});
  struct Ns {
    unsigned long flag;
    const char* name;
  };
  for (Ns ns : {Ns{CLONE_NEWNS, "mount namespaces"}, Ns{CLONE_NEWPID, "pid namespaces"},
                Ns{CLONE_NEWIPC, "ipc namespaces"}, Ns{CLONE_NEWUTS, "uts namespaces"},
                Ns{CLONE_NEWCGROUP, "cgroup namespaces"}, Ns{CLONE_NEWNET, "network namespaces"}}) {
    if (ns.flag == CLONE_NEWNET && plan.network == Network::host) continue;
    if (!missing.empty() && missing[0].feature == "user namespaces") break;
    if (!can_clone(CLONE_NEWUSER | ns.flag))
      missing.push_back({ns.name, "a kernel built with CONFIG_NAMESPACES and this namespace type"});
  }
  if (::prctl(PR_GET_SECCOMP) < 0)
    missing.push_back({"seccomp filters", "a kernel built with CONFIG_SECCOMP_FILTER"});
  std::string why_no_limits;
  if (plan.apply_limits && !cgroup_writable(plan, why_no_limits)) {
    if (::geteuid() == 0)
      // root, whom a machine lets make groups: in a container that was handed its cgroup
      // hierarchies read-only, or whose mount does not reach awaywork's own group.
      missing.push_back(
          {"cgroup limits (memory, pids, cpu): " + why_no_limits,
           "give awaywork cgroups it can write: in a container on a cgroup v1 kernel (with "
           "CAP_SYS_ADMIN) `mount -o remount,rw,bind /sys/fs/cgroup/memory`, the same for pids "
           "and cpu (docs/first-run.md, \"Limits for root in a container\"); or set `sandbox: "
           "{limits: off}` in the config"});
    else if (limits_v1_only())
      missing.push_back(
          {"cgroup limits (memory, pids, cpu): this kernel binds the memory, pids and cpu "
           "controllers to cgroup v1 (its cgroup v2 tree offers none of them), and systemd "
           "delegates only cgroup v2 to a user, so no cgroup of yours can hold the limits",
           "run awaywork as root; or boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2 with "
           "the controllers, which systemd delegates to user@UID.service); or set `sandbox: "
           "{limits: off}` in the config (the phases stay contained, and RLIMIT_NPROC in the "
           "sandbox's user namespace still stops a fork bomb)"});
    else
      missing.push_back(
          {"cgroup limits (memory, pids, cpu)",
           "run awaywork as root, delegate a cgroup v2 subtree (systemd-run --user "
           "--scope -p Delegate=yes), or set `sandbox: {limits: off}` in the config"});
  }
  if (plan.network == Network::allowlist &&
      (plan.proxy_socket.empty() || ::access(plan.proxy_socket.c_str(), F_OK) != 0))
    missing.push_back({"network allowlist: the egress proxy's socket",
                       "start EgressProxy (proxy/egress_proxy.h) and set the plan's proxy_socket"});
  if (plan.network != Network::host)
    for (const auto& b : plan.bridges)
      if (b.socket.empty() || ::access(b.socket.c_str(), F_OK) != 0)
        missing.push_back({"a bridged socket: " + (b.socket.empty() ? "(no path)" : b.socket),
                           "start the service behind it (the inference proxy) before the phase"});
  return missing;
}

std::vector<std::string> sandbox_warnings(const SandboxPlan& plan) {
  std::vector<std::string> w;
  if (plan.network == Network::host)
    w.push_back(
        "sandbox network: host: phases share the host's network (its loopback services, "
        "cloud metadata endpoints, the whole internet); use none or allowlist");
  if (!plan.apply_limits)
    w.push_back("sandbox limits are off: a phase can exhaust memory and processes");
  if (plan.network != Network::host && landlock_abi() == 0)
    w.push_back("landlock is not available on this kernel: one layer of the sandbox is missing");
  return w;
}

Status sandbox_available(const SandboxPlan& plan) {
  auto missing = probe_sandbox(plan);
  if (missing.empty()) return {};
  std::string text = "the sandbox cannot be built here:";
  for (const auto& m : missing) text += fmt::format(" missing {} (fix: {});", m.feature, m.fix);
  return fail(text);
}

Result<std::string> sandbox_decision(const SandboxPlan& plan) {
  if (plan.mode == SandboxMode::off)
    return std::string("unsandboxed: sandbox is off in the config");
  auto ok = sandbox_available(plan);
  if (ok) return std::string();
  if (plan.mode == SandboxMode::required)
    return fail(
        "{} (sandbox: required refuses to run the unit; set sandbox: preferred to run it "
        "unsandboxed)",
        ok.error().message);
  return "unsandboxed: " + ok.error().message;
}

}  // namespace aw
