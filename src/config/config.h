// The one schema struct of awaywork's configuration, and its loader. Every key a user may write
// is a field here; the loader refuses anything else with file:line:col, the key path and a hint.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "check/bounds.h"

namespace aw {

enum class Isolation { none, user, container };
enum class SandboxMode { off, preferred, required };
enum class Network { none, allowlist, host };
enum class PromptMode { stdin_pipe, file };

using Argv = std::vector<std::string>;

struct Limits {
  uint64_t memory_bytes = 4ull << 30;  // "4G"
  int pids = 512;
  double cpus = 2.0;
  bool enabled = true;  // `limits: off`: none (an owner without a delegated cgroup cannot set them)
};

struct SandboxConfig {
  // `required` refuses a unit the machine cannot sandbox (naming the missing feature); `preferred`
  // runs it unsandboxed and records that it did.
  SandboxMode mode = SandboxMode::required;
  Network network = Network::none;
  std::vector<std::string> allow;     // domains for network: allowlist ("example.com", "*.x.org")
  std::vector<std::string> writable;  // extra read-write paths
  std::vector<std::string> hidden;    // extra paths masked inside the sandbox
  std::vector<std::string> readable;  // owner paths (under a home) the view includes read-only
  Limits limits;
};

// An MCP server of the agent (docs/agents.md): agents: NAME: mcp: {SERVER: {command: [...],
// env: [NAMES], secrets: [NAMES], run: inside|outside, net: [HOSTS], read: [PATHS]}}.
// inside (the default): the agent's CLI starts it inside the unit's isolation, handed its
// variables and secrets by name (the agent can read them). outside: awaywork starts it on the
// owner's side in an OS sandbox of its own (plugin/mcp_outside.h) and the CLI reaches it through
// a relay; its secrets never enter the unit.
struct McpServerConfig {
  std::string name;
  Argv command;  // inside: argv[0] resolved inside the isolation (PATH, image); outside: the host's
  std::vector<std::string> env;      // owner variables handed by name
  std::vector<std::string> secrets;  // secret-store names, handed by name, redacted
  bool outside = false;              // run: outside
  std::vector<std::string> net;      // outside: hosts reached through its egress proxy; none = none
  std::vector<std::string> read;     // outside: absolute paths lent read-only (its script, data)
  int line = 0;                      // 1-based line of its key, for errors found after loading
};

struct AgentConfig {
  std::string name;
  Argv command;  // argv; a YAML string is split into words, never run by a shell
                 // (may be empty when `provider` supplies it)
  PromptMode prompt = PromptMode::stdin_pipe;
  std::vector<std::string> env;  // names of owner variables handed to this agent
  std::string provider;     // claude | codex | cursor | opencode | gemini | command ("" = command)
  std::string inference;    // a name under inference: ("" = the agent talks to no proxy)
  std::string profile;      // default profile for this agent ("" = none)
  bool lend_login = false;  // codex: lend the owner's ChatGPT login (auth.json) for the unit
  std::map<std::string, McpServerConfig> mcp;  // by the CLI inside, or by awaywork outside
  std::vector<std::string> plugins;  // absolute folders, mounted read-only at their own paths
};

// An environment profile: variables and secrets handed by name to every phase of a unit that
// names it (`run --profile`, a repo's or an agent's `profile:`).
struct ProfileConfig {  // profiles: NAME: {vars: {K: V}, secrets: [NAMES]}
  std::string name;
  std::map<std::string, std::string> vars;
  std::vector<std::string>
      secrets;  // secret-store names; each is handed as an env var of the same name
};

// A secret that never enters the unit (docs/secrets.md#injection): the egress proxy adds it to
// the requests its rules allow and the phase holds only a placeholder.
// secrets: NAME: {inject: [{host: H, header: Authorization, value: "Bearer {secret}"}]}
struct InjectRule {
  std::string host;                       // an exact host name, lowercase (no wildcard, no IP)
  std::string header = "Authorization";   // the header the proxy sets (the agent's own is dropped)
  std::string value = "Bearer {secret}";  // "{secret}" is replaced by the value, once
  std::string basic_user;  // basic: {user: U}: "Basic base64(U:secret)" (value is then unused)
  std::vector<std::string> methods;  // upper-case; empty = any method
  std::vector<std::string> paths;    // path prefixes, each starting with "/"; empty = any path
};

struct SecretConfig {
  std::string name;  // the secret-store name
  std::vector<InjectRule> inject;
  int line = 0;  // 1-based line of its key, for errors found after loading (not in the store)
};

// An upstream model API the inference proxy forwards to; the real key stays outside the unit.
struct InferenceConfig {  // inference: NAME: {...}
  std::string name;
  std::string api;             // "anthropic" | "openai" (required)
  std::string url;             // https://api.anthropic.com ; https required, http only to loopback
  std::string credential;      // secret name holding the real key (required)
  int max_requests = 0;        // 0 = unlimited
  uint64_t budget_tokens = 0;  // input+output tokens reported by the upstream; 0 = unlimited
  std::string ca_file;         // extra CA bundle to trust (corporate/test); "" = system store
};

// Where a unit's branch is pushed when not to the local source: a remote, with a credential
// from awaywork's secret store (never in the URL).
struct PublishConfig {
  std::string url;         // https://, http:// (loopback only with a credential), git://, file://
  std::string credential;  // a secret's name (`awaywork secret set NAME`); "" = anonymous
  std::string user;        // sent with the credential; "" = x-access-token
  std::string branch;      // the branch the base must be on; "" = the unit's base
};

inline constexpr std::string_view kGitlabApiUrl = "https://gitlab.com/api/v4";

// A forge awaywork reads issues from and publishes to (docs/forge.md, docs/gitlab.md).
struct ForgeConfig {  // forges: NAME: {...}
  std::string name;
  // "github" (github.com and GitHub Enterprise Server) or "gitlab" (gitlab.com, self-managed).
  std::string kind = "github";
  // GHES: https://HOST/api/v3; kind gitlab: kGitlabApiUrl or https://HOST/api/v4; http only
  // to loopback.
  std::string api_url = "https://api.github.com";
  // a secret's name, or the owner's CLI login: "gh" (`gh auth token`), "glab" (kind gitlab)
  std::string credential;
  std::string ca_file;  // extra CA bundle to trust; "" = the system store
};

// Whose text reaches the agent and who may trigger a unit (forge/admission.h).
struct TrustConfig {
  std::vector<std::string> roles = {"admin", "maintain", "write"};  // collaborator role names
  std::vector<std::string> users;  // logins admitted whatever their role
  std::vector<std::string> bots;   // bot logins (GitHub: "name[bot]"; GitLab: the bot username)
};

// What a forge repository adds to a repo entry (repos: NAME: {github: OWNER/REPO, ...} or
// {gitlab: GROUP/SUBGROUP/PROJECT, ...}).
struct ForgeRepoConfig {
  std::string github;  // "OWNER/REPO" ("" = not a GitHub repository)
  std::string gitlab;  // "group/subgroup/project" (nested groups; "" = not a GitLab project)
  // The repository as its forge names it: OWNER/REPO or group/.../project; "" = not a forge one.
  const std::string& path() const { return github.empty() ? gitlab : github; }
  std::string forge;  // a name under forges: (implied when exactly one is defined)
  std::string task;   // the task text put before the issue ("" = the built-in one)
  TrustConfig trust;
  int64_t stop_after = 0;  // Unix seconds after which nothing is admitted; 0 = never
  std::string branch_prefix = "awaywork/";
  bool closing_keyword = false;  // the pull request body says "Closes #N" (written by awaywork)
  // `resume: true`: a follow-up unit of one of awaywork's pull requests continues the agent's
  // session of the pull request's last unit (claude, codex; docs/pull-requests.md). Per
  // repository: the session carries what the pull request's people wrote, the repository's trust.
  bool resume = false;
  // `agent_forge: read`: the phases may read this repository on its forge's API (GET and HEAD on
  // its issues, pull requests, checks, job logs), the egress proxy adding the forge's credential
  // for those requests only and refusing every other one to the API host (docs/secrets.md).
  bool agent_forge_read = false;
};

// `follow_up: {max_units_per_pr, max_ci_attempts, cooldown}` (docs/pull-requests.md): how many
// follow-up units watch starts on one pull request, how many in a row may fail the same check
// (`follow_ci: true`), and how long after one ends the next may start. A review loop between a
// person (or a bot admitted by mistake) and the agent, or a fix loop with a check, ends here.
struct FollowUpLimits {
  int max_units_per_pr = 5;
  int max_ci_attempts = 3;
  int64_t cooldown = 300;  // seconds
};

struct RepoConfig {
  std::string name;
  std::string path;       // a local repository, or
  std::string url;        // a remote one, or
  ForgeRepoConfig forge;  // a forge one (exactly one of path/url/github/gitlab)
  std::string base;       // branch; empty = the source's HEAD
  Argv setup;             // may be empty
  std::vector<Argv> checks;
  std::string image;      // for isolation: container
  Bounds bounds;          // what the output check lets through (check/bounds.h)
  PublishConfig publish;  // "" url = the branch goes to the local source
  std::string profile;    // default profile for units on this repo ("" = none)
  // `agent_settings: clone`: the agent CLI loads the clone's own settings, hooks and MCP servers
  // (.claude/, .mcp.json, ...); default `awaywork`: only what awaywork writes (docs/agents.md).
  bool clone_agent_settings = false;
  int rounds = 1;            // loop: {rounds: N}: agent runs while checks fail (docs/rounds.md)
  Argv when;                 // run before the first agent round; a non-zero exit skips the unit
  FollowUpLimits follow_up;  // watch's follow-up units on awaywork's pull requests (issue 26)
  // `follow_ci: true`: a failing check on the head of awaywork's own pull request starts a
  // follow-up, and its task quotes the failing checks (docs/pull-requests.md). Off by default: a
  // check's log is text the pull request's author shaped.
  bool follow_ci = false;
};

// The watchdog's floors (top-level `limits:`; sandbox.limits are the phases' cgroup). A unit
// does not start, and a running one is stopped and recorded `failed`, when the state folder's or
// the clone's filesystem has less free space than disk_floor, or the host less available memory
// than memory_floor_percent of its total. 0 turns a floor off. A container engine that does not
// answer for engine_silence_ms (a phase's liveness question, a removal) loses the unit.
struct WatchdogLimits {
  uint64_t disk_floor = 1ull << 30;  // "1G"
  double memory_floor_percent = 5.0;
  int64_t engine_silence_ms = 60000;  // "60s"
};

// `awaywork watch` (docs/watch.md): which forge repositories it polls, what asks it for a unit
// there, and when and how many units it runs. Keys of a repository default to the watch: keys.
struct WatchFailure {                     // on_failure: comment | {label: NAME} | {retry: N}
  std::string label = "awaywork:failed";  // added to the issue when a unit fails
  int retry = 0;  // run the issue again up to this many times before failing
};

struct WatchWindow {         // window: "22:00-07:00" (local time; may cross midnight)
  int start = -1, end = -1;  // seconds after local midnight; -1 = always open
};

struct WatchRepoConfig {
  std::string repo;                   // a name under repos: with github:
  std::string label = "awaywork";     // trigger: this label added ("" = none)
  std::string assignee;               // trigger: an issue assigned to this login ("" = none)
  std::string command = "/awaywork";  // trigger: a comment starting with it ("" = none)
  int max_units = 1;                  // at once on this repository, on this machine
  WatchWindow window;
  int64_t stop_after = 0;  // Unix seconds after which no trigger is admitted; 0 = never
  WatchFailure on_failure;
  // run_on: local (a unit here, `awaywork run --issue`) | actions (dispatch the workflow below
  // on GitHub Actions and follow its run; docs/scale-out.md).
  bool on_actions = false;
  std::string workflow =
      "awaywork.yml";        // the repository's workflow file run_on: actions dispatches
  std::string workflow_ref;  // the branch it is dispatched on ("" = default branch)
  // actions_login: the login the dispatched workflow's jobs publish under (its github.token's:
  // github-actions[bot]; or a GitHub App's NAME[bot]). A pull request by it is awaywork's own to
  // watch only when its marker names a unit whose artifact a run this watch dispatched uploaded
  // (watcher_actions_own.cc). Unset: github-actions[bot] with run_on: actions, none without;
  // "" turns it off. Read it through actions_login_of.
  std::optional<std::string> actions_login;
};

// The login above as it applies: "" when none.
std::string actions_login_of(const WatchRepoConfig& w);

// watch: {sources: [{source: PLUGIN, repo: NAME}]} (issue 28, docs/plugins.md#source-source): a
// source plugin watch asks for tasks each poll, whose units run on the repository named.
struct WatchSourceConfig {
  std::string plugin;  // a plugins: name of kind source
  std::string repo;    // a repos: name: where its tasks' units run, whose trust: caps the authors'
  int max_units = 1;   // at once for this source, on this machine
  int line = 0;        // 1-based line of the entry, for errors found after loading
};

struct WatchConfig {
  std::vector<WatchRepoConfig> repos;
  // Task source plugins (may be all there is to watch).
  std::vector<WatchSourceConfig> sources;
  int poll_seconds = 60;         // at least; a forge's X-Poll-Interval may make it longer
  int max_units = 2;             // at once on this machine
  int64_t claim_ttl = 6 * 3600;  // seconds after which another watcher may take a silent claim
  int64_t shutdown_grace = 300;  // seconds units may finish in after SIGTERM/SIGINT
};

// The owner's own plugin code (issue 28, docs/plugins.md): a program awaywork runs as a separate
// process in its OS sandbox with only what it declares here, speaking JSON-RPC over stdio.
// plugins: {run: true, NAME: {kind: notifier, command: [...], net: [...], read: [...], ...}}
enum class PluginKind { notifier, check, source };

struct PluginConfig {
  std::string name;
  PluginKind kind = PluginKind::notifier;
  Argv command;                      // argv[0] an absolute path; its folder is lent read-only
  std::vector<std::string> net;      // host names reached through the egress proxy; none = no net
  std::vector<std::string> read;     // absolute paths lent read-only
  std::vector<std::string> write;    // absolute folders lent read-write (plugin/write_paths.h)
  std::vector<std::string> secrets;  // secret-store names, each handed as a variable of that name
  std::vector<std::string> env;      // owner variables handed by name (nothing else is inherited)
  int64_t timeout_ms = 30000;        // per call; then SIGTERM, SIGKILL, reaped
  uint64_t memory_bytes = 256ull << 20;
  int processes = 32;
  int line = 0;  // 1-based line of its key, for errors found after loading
};

struct PluginsConfig {
  // "Run approved plugin code on this machine": off unless the owner writes run: true, so that a
  // declared plugin is never started by a config the owner did not mean to turn it on with.
  bool run = false;
  std::map<std::string, PluginConfig> plugins;
};

struct Config {
  std::string file;  // where it was read from ("" = built-in defaults)
  Isolation isolation = Isolation::none;
  SandboxConfig sandbox;
  WatchdogLimits limits;
  uint64_t max_transcript_bytes = 256ull << 20;  // past it the transcript is cut, the unit goes on
  int unit_minutes = 60;
  std::string state_dir;      // default $XDG_STATE_HOME/awaywork or ~/.local/state/awaywork
  std::string default_agent;  // key `agent`: used when run has no --agent
  std::string worker_user = "awaywork";  // isolation user: the worker's name
  std::string container_engine;  // isolation container: docker | podman | a client path; ""=find
  std::string container_image;   // isolation container: default image (repos.X.image wins)
  std::map<std::string, AgentConfig> agents;
  std::map<std::string, RepoConfig> repos;
  std::map<std::string, ProfileConfig> profiles;
  std::map<std::string, InferenceConfig> inference;
  std::map<std::string, ForgeConfig> forges;
  std::map<std::string, SecretConfig> secrets;  // secrets: added at the egress proxy only
  WatchConfig watch;
  PluginsConfig plugins;  // plugins: the owner's plugin code and the switch that stops it all
  // Not a key of the file: set by the command line for the reusable workflow's job commands only
  // (`run ... --artifact DIR`, `apply --from DIR`). Only these may take an installation token's
  // 403 on GET /user as github-actions[bot]'s login (forge/self_login.h); watch, serve and a plain
  // run never set it, whatever the environment says.
  bool workflow_job = false;
};

// $XDG_CONFIG_HOME/awaywork/config.yml, or ~/.config/awaywork/config.yml.
std::string default_config_path();

// Load path. A missing file at the *default* path gives the built-in defaults; a missing file
// named by --config is an error (explicit = must exist).
Result<Config> load_config(const std::string& path, bool explicit_path);

// The config a command runs with, given its --config: that file (which must exist), or with ""
// the default path's (the built-in defaults when it is missing). Every command loads it so.
Result<Config> load_given_config(const std::string& given);

// Parse YAML text; `file` names it in error messages ("config.yml:3:5: ...").
Result<Config> parse_config(const std::string& text, const std::string& file);

// Split a command string like a POSIX shell splits words (quotes and backslashes), without any
// expansion: no variables, globs, tilde or command substitution. Unbalanced quotes are an error.
Result<Argv> split_words(const std::string& command);

const char* to_string(Isolation v);
const char* to_string(SandboxMode v);
const char* to_string(Network v);
const char* to_string(PluginKind v);

}  // namespace aw
