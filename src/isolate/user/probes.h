// The leak probes of isolation `user`, run *as the worker* (as an agent would be): each tries to
// reach something of the owner's and reports `ok NAME` or `LEAK NAME: what it reached`.
// Self-contained; the general probe framework (isolate/probe/) prints the same format.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

struct ProbeResult {
  std::string name;
  bool leak = false;
  std::string what;  // what was reached (for LEAK) or why it is ok
};

struct ProbeTargets {
  std::string env_file;  // the owner's ~/.config/awaywork/env
  std::string owner_home;
  pid_t awaywork_pid = 0;  // the owner's awaywork process
  std::string gh_hosts;    // the owner's ~/.config/gh/hosts.yml
  std::string ssh_glob = "/tmp/ssh-*/agent.*";
};

// env-file, owner-home, awaywork-environ, any-environ, gh-hosts, ssh-agent, sudo, crontab.
std::vector<ProbeResult> run_worker_probes(const ProbeTargets& t);

// The leftover probe has two halves around the end of a phase: the worker starts a detached
// `sleep` in a new session (returns its pid) ...
pid_t start_detached_sleep();
// ... and after the phase's kill, awaywork checks that it is gone.
ProbeResult check_left_behind(pid_t sleep_pid);

// "ok NAME" / "LEAK NAME: what", one per line: the format of the general probe framework.
std::string render_probes(const std::vector<ProbeResult>& results);

}  // namespace aw
