// Internal to the sandbox: what the parent prepares before clone, and the steps each side runs.
// Parent-side steps may allocate and return Result; child-side steps run between clone and exec,
// report failure as text over the handshake socket, and never return to the caller's code.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "base/argv.h"
#include "base/result.h"
#include "isolate/sandbox/plan.h"
#include "proc/runner.h"

namespace aw::sandbox {

// Everything the child needs, computed in the parent so the child does no lookups.
struct Prepared {
  const SandboxPlan* plan = nullptr;
  const ExecRequest* req = nullptr;
  std::vector<sock_filter> seccomp;     // the compiled filter (empty when disabled)
  std::vector<std::string> exec_paths;  // candidates for argv[0] along the env's PATH
  std::vector<std::string> proxy_env;   // HTTP_PROXY... for network: allowlist
  CStrings argv, envp;                  // req's argv; req's env, proxy_env in the place of its own
  uid_t uid = 0;                        // inside = outside: files keep their owners
  gid_t gid = 0;
  int landlock_abi = 0;
  bool joined_unit_netns = false;  // joined the unit's namespace: lo is already up
};

// ---- parent side ----
Result<std::vector<sock_filter>> build_seccomp(const SandboxPlan& plan);  // seccomp.cc
Status write_id_maps(pid_t child, uid_t uid, gid_t gid);                  // userns.cc
Status apply_cgroup_limits(const SandboxPlan& plan, const ExecRequest& req,
                           pid_t child);                                   // limits.cc
Result<std::vector<std::string>> exec_candidates(const ExecRequest& req);  // launcher.cc
// Join the unit's network namespace around the clone; returns our own to go back to (or -1).
int enter_unit_netns(int unit_fd);  // net.cc
void leave_unit_netns(int own_fd);  // net.cc
// Write to a file that must already exist (cgroup and /proc files): no create, no truncate.
Status write_existing(const std::string& path, const std::string& data);  // limits.cc

// ---- child side (all return an error text or "" on success) ----
// Handshake: the child reports the first failing step as text; EOF without text means exec.
[[noreturn]] void child_main(const Prepared& p, int sock);  // child.cc
std::string build_fs_view(const SandboxPlan& plan);         // mounts.cc
std::string bring_up_loopback();                            // net.cc
// One bridged socket inside: the listener on 127.0.0.1:port, the O_PATH fd of the socket outside.
struct BridgeFds {
  int listen_fd = -1;
  int target_fd = -1;
};
std::string open_bridges(const SandboxPlan& plan, std::vector<BridgeFds>* out);  // bridge.cc
[[noreturn]] void run_bridges(const Prepared& p, const std::vector<BridgeFds>& bridges);
std::string apply_rlimits(const SandboxPlan& plan);                             // limits.cc
std::string drop_privileges(const SandboxPlan& plan);                           // caps.cc
std::string apply_landlock(const SandboxPlan& plan, int abi);                   // landlock.cc
std::string apply_seccomp(const std::vector<sock_filter>& prog, bool set_nnp);  // seccomp.cc

// "step: strerror (errno N)" for a failed syscall in the child.
std::string step_error(const char* step, const std::string& what, int err);

}  // namespace aw::sandbox
