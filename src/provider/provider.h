// Providers: how each agent CLI is started unattended, and what a unit adds so that it talks to
// awaywork's inference proxy with a run token instead of the owner's key (DESIGN.md section 4).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "config/config.h"

namespace aw {

struct ProviderSpec {
  std::string name;                  // claude | codex | cursor | opencode | gemini | command
  std::vector<std::string> command;  // default argv (empty for command)
  // The prompt on stdin, stdin closed after it; else argv holds "{prompt_file}", replaced by the
  // path of a file the unit writes (never the prompt itself: argv is visible to every process).
  bool prompt_stdin = true;
  // What the inference proxy must speak: "anthropic" (x-api-key), "openai" (Bearer), "gemini"
  // (x-goog-api-key, /v1beta/models/...); "" = the CLI has no base URL setting (cursor).
  std::string api;
  std::string version_argv0;  // program asked `--version` by doctor ("" = none)
};

// nullptr = unknown name.
const ProviderSpec* find_provider(std::string_view name);
const std::vector<ProviderSpec>& builtin_providers();

// What of the agent's config and the unit the provider turns into its CLI's own settings.
struct LaunchExtras {
  std::string clone;            // the clone's path as the phase sees it ("" = unknown)
  bool clone_settings = false;  // the repository opted in (`agent_settings: clone`)
  std::map<std::string, McpServerConfig> mcp;
  std::vector<std::string> plugins;  // absolute folders
  // The session to continue (claude, codex; provider/resume.h): its uuid, whose file the unit
  // put in its HOME. "" = a fresh session.
  std::string resume_id;
};

// A folder of awaywork's own files (name, content), bound read-only at target inside the
// isolation (sandbox, container): where the phase can read them and never write.
struct LentFolder {
  std::string target;
  std::vector<std::pair<std::string, std::string>> files;
  std::string why;
  // Bound in the agent phases only: a mask over a folder of the clone (cursor's .cursor) that
  // setup and the checks, which the CLI does not run in, see as it is.
  bool agent_only = false;
};

struct ProviderLaunch {
  std::vector<std::pair<std::string, std::string>> env;  // added to the phase's clean env
  std::vector<std::string> argv;                         // the full argv
  std::vector<std::string> state_dirs;  // per-unit folders to create (mode 0700) before the phase
  // Per-unit files to write (absolute path, content; mode 0600) after the folders: settings a CLI
  // reads only from a file. Never a secret (the token travels in env only).
  std::vector<std::pair<std::string, std::string>> files;
  // The CLI's managed settings: written by the isolation outside every folder the phase may
  // write, bound read-only at target.
  std::vector<LentFolder> lent_folders;
  // Owner folders bound read-only at their own paths (plugins).
  std::vector<std::string> readonly_paths;
  // Variables the CLI must hand its MCP servers by name; the unit fills their values.
  std::vector<std::string> mcp_env_names;
};

// Where Claude Code reads its managed settings on Linux (policy settings: they win over every
// other source and cannot be overridden by user, project or --settings).
inline constexpr const char* kClaudeManagedDir = "/etc/claude-code";

// The run token rides in this variable for every provider that reads its key from a variable
// named in its own config (codex's env_key); claude and gemini read their usual variables.
inline constexpr const char* kRunTokenEnv = "AWAYWORK_RUN_TOKEN";

// What a unit adds for the provider. configured_argv empty = spec.command. proxy_url is the
// base the agent must use ("http://127.0.0.1:PORT", no trailing slash; "" = no proxy: the CLI
// talks to its vendor with whatever credential the unit's profile hands it). run_token is put
// only in the environment, never on argv. unit_home is the unit's fresh HOME (absolute).
Result<ProviderLaunch> provider_launch(const ProviderSpec& spec,
                                       const std::vector<std::string>& configured_argv,
                                       const std::string& proxy_url, const std::string& run_token,
                                       const std::string& unit_home,
                                       const LaunchExtras& extras = {});

// For a spec with prompt_stdin = false: every "{prompt_file}" in argv (whole or inside an
// argument, e.g. "--file={prompt_file}") replaced by the path of the file the unit wrote.
// Fails when argv has no placeholder: the prompt would reach the agent by no way at all.
Result<std::vector<std::string>> with_prompt_file(std::vector<std::string> argv,
                                                  const std::string& path);

}  // namespace aw
