// Who a unit's phases run as, and what happens around each phase: the seam between the pipeline
// (unit/) and the isolation backends (isolate/none, isolate/user, isolate/container; the factory
// that picks one is isolate/choose/choose.h). Everything here is plain data of the isolation's
// own: the pipeline hands in an IsolationSpec, never its Target, RunDir or Clone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fs.h"
#include "base/result.h"
#include "config/config.h"
#include "proc/runner.h"
#include "provider/provider.h"
#include "proxy/egress_proxy.h"

namespace aw {

// What of a unit its isolation needs, copied when the isolator is made: the repository (its
// programs and image), the agent (its program, variables, prompt mode) and the profile (the
// names of its variables and secrets, which a container passes by name).
struct IsolationSpec {
  std::string label;  // the repository as given (config name or path), for messages
  RepoConfig repo;
  AgentConfig agent;
  ProfileConfig profile;
  // The unit's share of its egress proxy's options: the injected secrets' rules and the
  // placeholders refused elsewhere (config `secrets:`, unit/unit_injection.h). The isolation that
  // starts the proxy adds its socket, allowlist and log; one that starts none must refuse a unit
  // with rules, whose secrets would otherwise silently never be added.
  EgressProxyOptions egress;
};

// The unit's run folder (always the owner's: runs/<id>/) and where its clone goes.
struct RunFolder {
  std::string root;
  std::string work;
};

// The clone, once made: its folder and that folder's identity (lstat), for the isolation that
// hands it to someone else (user) to check it is the same folder.
struct CloneDir {
  std::string work;
  DirId id;
};

// One phase as the isolation starts it.
struct PhasePlan {
  std::string name;  // setup, when, agent, check 1..n; with rounds: agent K, check I (round K)
  Argv argv;
  bool agent = false;
};

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

// A unix socket of awaywork's as the phases reach it (bridge_socket).
struct SocketBridge {
  std::string path;      // where awaywork makes the socket
  bool bridged = false;  // reachable at 127.0.0.1:port in the phases' own network namespace
};

// Every operation is the backend's to answer: none has a default, since "nothing to do" is a
// decision of each isolation (an unsandboxed phase lends nothing; a sandboxed one must).
class Isolator {
 public:
  virtual ~Isolator() = default;
  // Where the unit's folders go. Called once, before the clone is made; creates home, tmp and
  // outputs (the clone's folder is made by the clone).
  virtual Result<UnitPaths> layout(const RunFolder& run) = 0;
  // The clone exists and the prompt is written; nothing has run yet.
  virtual Status ready(const CloneDir& clone, const UnitPaths& paths) = 0;
  // Before the first phase: every phase's program can be run by whoever runs it (user: found
  // and runnable as the worker). An Error fails the unit before any phase, with the fix.
  virtual Status can_run(const std::vector<PhasePlan>& phases) = 0;
  // Just before a phase (user: hand the folders to the worker).
  virtual Status before_phase() = 0;
  // How to start this phase's main process; an empty Launcher = the runner's fork/exec.
  virtual Result<Launcher> launcher(const PhasePlan& plan, int index) = 0;
  // Extra "KEY=VALUE" for the phase environment (e.g. the sandbox's proxy variables).
  virtual std::vector<std::pair<std::string, std::string>> extra_env() const = 0;
  // A unix socket of awaywork's (the inference proxy's), to be reached at 127.0.0.1:port in the
  // phases' network namespace: where to make it (`fallback`, the owner's run folder, unless the
  // phases run as another user, who must be let reach it somewhere else), and whether it is
  // bridged there. Not bridged: the phases share the host's loopback (the caller listens on a
  // loopback port instead); an Error: this isolation cannot reach it at all.
  virtual Result<SocketBridge> bridge_socket(const std::string& fallback, uint16_t port) = 0;
  // Names of variables the agent phase gets beyond the owner's (the provider's); an isolation
  // that passes variables by name (container) must pass these too.
  virtual void add_agent_env_names(const std::vector<std::string>& names) = 0;
  // Awaywork's own files (a CLI's managed settings) bound read-only at folder.target in every
  // later phase (every later agent phase when folder.agent_only), written where no phase can
  // write. false: this isolation has no view to bind them into (unsandboxed), nothing is written.
  virtual Result<bool> lend_folder(const LentFolder& folder) = 0;
  // An owner folder (a plugin) bound read-only at its own path. false: unsandboxed, the phase
  // sees the host's folder as it is.
  virtual Result<bool> lend_path(const std::string& path) = 0;
  // The command an agent's CLI runs, inside the agent phases' view, in place of an MCP server
  // awaywork runs outside the unit (unit/agent_mcp.h): the relay (isolate/mcp_relay.h) and its
  // leading arguments, to which the caller appends the target (a socket bridge_socket made, as
  // the phases reach it). Lends the relay into the agent phases' view when they would not have it
  // (none and user: awaywork itself; container: its static relay at a fixed path, since the image
  // has none of awaywork's libraries). Called once per unit, before its first phase. An Error: no
  // relay can run there (the fix named).
  virtual Result<Argv> mcp_relay() = 0;
  // Asked every few hundred milliseconds while a phase runs, never blocking: why the unit must be
  // lost now (container: the engine stopped answering). The phase is stopped, after_phase still
  // runs, and the unit is recorded lost with this reason.
  virtual std::optional<std::string> lost_while_running() const = 0;
  // Right after a phase, before anything reads the clone (user: kill the worker's processes and
  // take the folders back; container: remove the container). An Error loses the unit. Answers
  // how many processes the kernel's OOM killer ended at a memory limit the isolation set itself
  // (the sandbox's v1 memory group), read from the cgroup's own counter.
  virtual Result<int> after_phase(int index, std::vector<std::string>& notes) = 0;
  // The unit is over. When lost, folders are left for inspection. Answers what it found and did,
  // for the record's notes (user: the worker's leftovers).
  virtual std::vector<std::string> finish(bool lost) = 0;
  // For the record: "sandboxed: ..." or "unsandboxed: <reason>".
  virtual std::string sandbox_note() const = 0;
};

// Nothing when spec has no injected secrets; else an Error naming them: this unit's phases get no
// egress proxy (why), so the rules would be accepted and their secrets never added. Every
// isolation that starts no egress proxy for a unit asks this before making it.
Status injection_needs_egress(const IsolationSpec& spec, const std::string& why);

// awaywork itself as the MCP relay (`awaywork __mcp-relay`), lent read-only into iso's view when
// it is not under /usr (a build tree, which a sandbox's view would not have): the relay of the
// isolations whose phases run the host's own programs (none, user).
Result<Argv> awaywork_mcp_relay(Isolator& iso);

// Write folder.files into a new folder under parent (folder 0755, files 0644, owned by the
// owner) and return its path: the source of a lent folder.
Result<std::string> write_lent_folder(const std::string& parent, const LentFolder& folder);

// The unit's run folder, made: STATE/runs/<id>/ (mode 0700, the owner's), its clone's place
// `work` in it (made by the clone). An Error when it exists already.
Result<RunFolder> make_run_folder(const std::string& state_dir, const std::string& id);

// The default layout: everything under the unit's run folder (isolation none).
Result<UnitPaths> run_folder_layout(const RunFolder& run);

using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// Every phase's git reads no global or system config (docs/rounds.md): GIT_CONFIG_GLOBAL and
// GIT_CONFIG_SYSTEM are /dev/null, GIT_CONFIG_NOSYSTEM=1, in every isolation (a container gets
// them as placeholders). A ~/.gitconfig or ~/.config/git/config that one round writes (a filter,
// core.hooksPath, a promisor remote) is then never what a later phase's git runs; /dev/null is
// there in every view, nobody can replace it, and `git config --global` fails instead of leaving
// a file behind. The owner gives a phase git settings through a profile (GIT_CONFIG_COUNT...).
extern const EnvPairs kPhaseGitEnv;

// The environment of a phase, built from nothing (proc/runner.h build_env): the allowlist, the
// owner variables named in owner_names, the profile's pairs (vars and secrets), then the unit's
// placeholders and the isolator's extras, which win over a profile.
std::vector<std::string> unit_env(const UnitPaths& paths, const std::string& unit_id,
                                  const std::string& phase, const Isolator& iso,
                                  const std::vector<std::string>& owner_names,
                                  const std::string& prompt_file, const EnvPairs& profile = {});

}  // namespace aw
