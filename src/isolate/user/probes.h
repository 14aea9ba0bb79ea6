// The leak probes of isolation `user`, run *as the worker* (as an agent would be): each tries to
// reach something of the owner's and reports `ok NAME` or `LEAK NAME: what it reached`.
// Self-contained; the general probe framework (isolate/probe/) prints the same format. Its own
// type names (Worker...): isolate/probe/probes.h has a ProbeTargets and a ProbeResult, and both
// are linked into awaywork.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

struct WorkerProbeResult {
  std::string name;
  bool leak = false;
  std::string what;  // what was reached (for LEAK) or why it is ok
};

struct WorkerProbeTargets {
  std::string env_file;  // the owner's ~/.config/awaywork/env
  std::string owner_home;
  pid_t awaywork_pid = 0;  // the owner's awaywork process
  std::string gh_hosts;    // the owner's ~/.config/gh/hosts.yml
  std::string ssh_glob = "/tmp/ssh-*/agent.*";
  std::string sleep_seconds = "300";  // the detached sleep's argument: its tag (see below)
};

// Text form, one "key<TAB>value" line each: what travels to the probe run as the worker.
std::string format_worker_targets(const WorkerProbeTargets& t);
WorkerProbeTargets parse_worker_targets(const std::string& text);

// env-file, owner-home, awaywork-environ, any-environ, gh-hosts, ssh-agent, sudo, crontab.
std::vector<WorkerProbeResult> run_worker_probes(const WorkerProbeTargets& t);

// The leftover probe has two halves around the end of a phase: the worker starts a detached
// `sleep SECONDS` in a new session (returns its pid) ...
pid_t start_detached_sleep(const std::string& seconds = "300");
// ... and after the phase's kill, awaywork checks that it is gone: by pid, or (when the phase ran
// in a pid namespace, where its pids mean nothing outside) by a unique SECONDS ("300.<nonce>")
// searched in every process's command line.
WorkerProbeResult check_left_behind(pid_t sleep_pid);
WorkerProbeResult check_left_behind(const std::string& seconds);

// "ok NAME" / "LEAK NAME: what", one per line: the format of the general probe framework.
std::string render_probes(const std::vector<WorkerProbeResult>& results);

}  // namespace aw
