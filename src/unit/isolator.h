// Who a unit's phases run as, and what happens around each phase. One implementation per
// isolation (isolator_none.cc, isolator_user.cc, isolator_container.cc); the pipeline sees only
// this interface.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "git/git.h"
#include "proc/runner.h"
#include "provider/provider.h"

namespace aw {

struct Target;
struct RunDir;
struct PhasePlan;

// The folders a unit's phases use. Everything a phase may write is here; where each lives
// depends on the isolation (the user worker cannot enter the owner's state folder; a container
// sees only the clone).
struct UnitPaths {
  std::string work;         // the clone
  std::string home;         // a fresh HOME
  std::string tmp;          // TMPDIR
  std::string outputs;      // AWAYWORK_OUTPUTS (requests.jsonl)
  std::string prompt_file;  // the prompt, for agents with `prompt: file`
};

class Isolator {
 public:
  virtual ~Isolator() = default;
  // Where the unit's folders go. Called once, before the clone is made; creates home, tmp and
  // outputs (the clone's folder is made by the clone).
  virtual Result<UnitPaths> layout(const RunDir& dir) = 0;
  // The clone exists and the prompt is written; nothing has run yet.
  virtual Status ready(const Clone& clone, const UnitPaths& paths) = 0;
  // Just before a phase (user: hand the folders to the worker).
  virtual Status before_phase() = 0;
  // How to start this phase's main process; an empty Launcher = the runner's fork/exec.
  virtual Result<Launcher> launcher(const PhasePlan& plan, int index) = 0;
  // Extra "KEY=VALUE" for the phase environment (e.g. the sandbox's proxy variables).
  virtual std::vector<std::pair<std::string, std::string>> extra_env() const { return {}; }
  // Where a unix socket of awaywork's that bridge_socket will be asked to bridge is made:
  // `fallback` (the owner's run folder, where the socket is the owner's alone), unless the phases
  // run as another user, who must be let reach it somewhere else. Called before bridge_socket.
  virtual Result<std::string> bridged_socket_path(const std::string& fallback) { return fallback; }
  // Make a unix socket of awaywork's (the inference proxy's) reachable at 127.0.0.1:port in the
  // phases' own network namespace. false: the phases share the host's loopback (the caller
  // listens on a loopback port instead); an Error: this isolation cannot reach it at all.
  virtual Result<bool> bridge_socket(const std::string& socket, uint16_t port) {
    (void)socket, (void)port;
    return false;
  }
  // Names of variables the agent phase gets beyond the owner's (the provider's); an isolation
  // that passes variables by name (container) must pass these too.
  virtual void add_agent_env_names(const std::vector<std::string>& names) { (void)names; }
  // Awaywork's own files (a CLI's managed settings) bound read-only at folder.target in every
  // later phase (every later agent phase when folder.agent_only), written where no phase can
  // write. false: this isolation has no view to bind them into (unsandboxed), nothing is written.
  virtual Result<bool> lend_folder(const LentFolder& folder) {
    (void)folder;
    return false;
  }
  // An owner folder (a plugin) bound read-only at its own path. false: unsandboxed, the phase
  // sees the host's folder as it is.
  virtual Result<bool> lend_path(const std::string& path) {
    (void)path;
    return false;
  }
  // Asked every few hundred milliseconds while a phase runs, never blocking: why the unit must be
  // lost now (container: the engine stopped answering). The phase is stopped, after_phase still
  // runs, and the unit is recorded lost with this reason.
  virtual std::optional<std::string> lost_while_running() const { return std::nullopt; }
  // After after_phase: how many processes the kernel's OOM killer ended at a memory limit the
  // isolation set itself (the sandbox's v1 memory group), read from the cgroup's own counter.
  virtual int oom_kills_in_phase() const { return 0; }
  // Right after a phase, before anything reads the clone (user: kill the worker's processes and
  // take the folders back; container: remove the container). An Error loses the unit.
  virtual Status after_phase(int index, std::vector<std::string>& notes) = 0;
  // The unit is over. When lost, folders are left for inspection.
  virtual void finish(bool lost) = 0;
  // Before the first phase: every phase's program can be run by whoever runs it (user: found
  // and runnable as the worker). An Error fails the unit before any phase, with the fix.
  virtual Status can_run(const std::vector<PhasePlan>& phases) {
    (void)phases;
    return {};
  }
  // After finish: what it found and did, for the record's notes (user: the worker's leftovers).
  virtual std::vector<std::string> end_notes() { return {}; }
  // For the record: "sandboxed: ..." or "unsandboxed: <reason>".
  virtual std::string sandbox_note() const = 0;
};

// Write folder.files into a new folder under parent (folder 0755, files 0644, owned by the
// owner) and return its path: the source of a lent folder.
Result<std::string> write_lent_folder(const std::string& parent, const LentFolder& folder);

// The isolation the config asks for, or an Error that says what is missing and how to fix it
// (policy `required` refuses here). Dispatches to one of the backends below.
Result<std::unique_ptr<Isolator>> make_isolator(const Config& cfg, const Target& target,
                                                const std::string& unit_id);

Result<std::unique_ptr<Isolator>> make_none_isolator(const Config& cfg, const Target& target,
                                                     const std::string& unit_id);
Result<std::unique_ptr<Isolator>> make_user_isolator(const Config& cfg, const Target& target,
                                                     const std::string& unit_id);
Result<std::unique_ptr<Isolator>> make_container_isolator(const Config& cfg, const Target& target,
                                                          const std::string& unit_id);

// The default layout: everything under the unit's run folder (isolation none).
Result<UnitPaths> run_folder_layout(const RunDir& dir);

}  // namespace aw
