#include "provider/agent_tools.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/json_write.h"

namespace aw::provider_tools {

namespace {

// A server name no configuration uses: allowed and excluded, so that gemini's allowlist filters.
constexpr const char* kGeminiNoServer = "awaywork-allows-no-other-server";

std::vector<std::string> args_of(const McpServerConfig& s) {
  return {s.command.begin() + (s.command.empty() ? 0 : 1), s.command.end()};
}

std::vector<std::string> names_of(const McpServerConfig& s) {
  std::vector<std::string> n = s.env;
  n.insert(n.end(), s.secrets.begin(), s.secrets.end());
  return n;
}

// A TOML basic string (codex's -c values are TOML).
std::string toml(const std::string& s) {
  return json_text(nlohmann::json(s));  // JSON string escapes are valid TOML basic-string escapes
}

std::string toml_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (const auto& s : v) {
    if (out.size() > 1) out += ',';
    out += toml(s);
  }
  return out + "]";
}

}  // namespace

std::vector<std::string> mcp_names(const LaunchExtras& x) {
  std::vector<std::string> out;
  for (const auto& [_, s] : x.mcp)
    for (auto& n : names_of(s))
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

// Tried on Claude Code 2.1.332 against tests/fakes/fake_anthropic.py: a clone's
// .claude/settings.json hook runs without these; with `--setting-sources user` the project and
// local settings (hooks, permissions, .mcp.json approvals) are not read; allowManagedHooksOnly in
// /etc/claude-code/managed-settings.json keeps even hooks written into the unit's own
// CLAUDE_CONFIG_DIR (the user source, writable by the agent) from running in a later round.
// CLAUDE_CODE_MANAGED_SETTINGS_PATH is not honoured by that build, so the system path is used.
// --strict-mcp-config: only the servers of --mcp-config start (no .mcp.json, no ~/.claude.json).
void claude(const LaunchExtras& x, const std::string& home, ProviderLaunch& out) {
  nlohmann::json managed = nlohmann::json::object();
  if (!x.clone_settings) managed["allowManagedHooksOnly"] = true;
  out.lent_folders.push_back({kClaudeManagedDir,
                              {{"managed-settings.json", json_text(managed, 2) + "\n"}},
                              "managed settings: claude"});
  if (!x.clone_settings) {
    out.argv.insert(out.argv.end(), {"--setting-sources", "user", "--strict-mcp-config"});
  }
  if (!x.mcp.empty()) {
    nlohmann::json servers = nlohmann::json::object();
    for (const auto& [name, s] : x.mcp) {
      nlohmann::json env = nlohmann::json::object();
      // Claude Code expands ${NAME} from its own environment: the value is never in the file.
      for (const auto& n : names_of(s)) env[n] = "${" + n + "}";
      servers[name] = {
          {"type", "stdio"}, {"command", s.command.front()}, {"args", args_of(s)}, {"env", env}};
    }
    std::string file = home + "/.claude/awaywork-mcp.json";
    out.files.emplace_back(file, json_text(nlohmann::json{{"mcpServers", servers}}, 2) + "\n");
    out.argv.insert(out.argv.end(), {"--mcp-config", file});
  }
  for (const auto& p : x.plugins) {
    out.argv.insert(out.argv.end(), {"--plugin-dir", p});
    out.readonly_paths.push_back(p);
  }
}

// Codex 0.171.0 reads a project's .codex/config.toml (its MCP servers, notify, hooks) and its
// AGENTS.md only for a trusted project. Tried against tests/fakes/fake_openai.py: `codex exec`
// trusts no project by default, but a round can trust the clone in $CODEX_HOME/config.toml (the
// unit's HOME: writable), and a `-c projects."<clone>".trust_level=...` override changes nothing
// either way; /etc/codex/managed_config.toml (its managed layer, over every other) marking the
// clone untrusted does win over that. Bound read-only there in the sandbox and the container.
// With the repository's opt-in the same layer trusts the clone, since a round's own trust in
// $CODEX_HOME is put back between rounds (unit/home_reset.h).
std::vector<std::string> codex(const LaunchExtras& x, ProviderLaunch& out) {
  std::vector<std::string> kv;
  if (!x.clone.empty())
    out.lent_folders.push_back(
        {"/etc/codex",
         {{"managed_config.toml",
           fmt::format("[projects.{}]\ntrust_level = \"{}\"\n", toml(x.clone),
                       x.clone_settings ? "trusted" : "untrusted")}},
         "managed settings: codex"});
  for (const auto& [name, s] : x.mcp) {
    std::string at = "mcp_servers." + name + ".";
    kv.push_back(at + "command=" + toml(s.command.front()));
    kv.push_back(at + "args=" + toml_list(args_of(s)));
    // env_vars: forwarded by name from codex's own environment.
    if (!names_of(s).empty()) kv.push_back(at + "env_vars=" + toml_list(names_of(s)));
  }
  std::vector<std::string> argv;
  for (auto& s : kv) argv.insert(argv.end(), {"-c", std::move(s)});
  return argv;
}

// Gemini CLI 0.61.0 merges its settings schema defaults < system defaults < user (the unit's
// HOME: a round can rewrite it) < workspace (the clone's .gemini/settings.json) < system, so the
// system file (/etc/gemini-cli/settings.json on Linux) is where awaywork's settings win. Tried
// against tests/fakes/fake_gemini.py with hooks and MCP servers in the user and the workspace
// settings: hooksConfig.enabled false runs no hook; mcp.allowed is the intersection of every
// scope's list, but an empty one filters nothing, so with no server configured it names one
// server that mcp.excluded also names (and a server of an allowed name takes the system file's
// definition). Gemini skips a system file that it, or a folder above it, is writable by group or
// others or not owned by uid 0. (0.61.0 reads the workspace settings only when the folder is
// trusted before --skip-trust takes effect, which today it never is.)
void gemini(const LaunchExtras& x, ProviderLaunch& out) {
  nlohmann::json system = nlohmann::json::object();
  if (!x.mcp.empty()) system["mcpServers"] = gemini_mcp(x);
  if (!x.clone_settings) {
    std::vector<std::string> names;
    for (const auto& [name, _] : x.mcp) names.push_back(name);
    system["hooksConfig"] = {{"enabled", false}};
    if (names.empty())
      system["mcp"] = {{"allowed", {kGeminiNoServer}}, {"excluded", {kGeminiNoServer}}};
    else
      system["mcp"] = {{"allowed", names}};
  }
  // A phase of a non-root owner sees the system file as not root's, and gemini then skips it: the
  // same keys in the user settings awaywork writes (put back before every round,
  // unit/home_reset.h) hold at each round's start there.
  for (auto& [path, text] : out.files) {
    if (!path.ends_with("/.gemini/settings.json")) continue;
    auto user = nlohmann::json::parse(text, nullptr, false);
    if (!user.is_object()) continue;
    user.merge_patch(system);
    text = json_text(user, 2) + "\n";
  }
  out.lent_folders.push_back({"/etc/gemini-cli",
                              {{"settings.json", json_text(system, 2) + "\n"}},
                              "managed settings: gemini"});
}

// settings.json `mcpServers` (env values "$NAME" are expanded from gemini's own environment).
nlohmann::json gemini_mcp(const LaunchExtras& x) {
  nlohmann::json servers = nlohmann::json::object();
  for (const auto& [name, s] : x.mcp) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& n : names_of(s)) env[n] = "$" + n;
    servers[name] = {{"command", s.command.front()}, {"args", args_of(s)}, {"env", env}};
  }
  return servers;
}

// opencode 1.18.33 (read from its bundled source, tried against tests/fakes/fake_anthropic.py with
// a clone holding an opencode.json MCP server and `instructions`, a .opencode/plugin, AGENTS.md
// and .claude/skills: without these all of them load). OPENCODE_DISABLE_PROJECT_CONFIG drops the
// project's opencode.json(c), its .opencode/ folders (config, plugins, commands, agents) and the
// top-level AGENTS.md/CLAUDE.md/CONTEXT.md; the project's .claude/ and .agents/ skills are scanned
// unless OPENCODE_DISABLE_EXTERNAL_SKILLS; OPENCODE_PURE loads no plugin named in any config;
// OPENCODE_DISABLE_CLAUDE_CODE drops CLAUDE.md among the instruction names. opencode still reads
// an AGENTS.md or CONTEXT.md in a folder it reads a file from: the restore between rounds covers
// those (base_paths.cc).
void opencode(const LaunchExtras& x, ProviderLaunch& out) {
  if (x.clone_settings) return;
  for (const char* k : {"OPENCODE_DISABLE_PROJECT_CONFIG", "OPENCODE_DISABLE_EXTERNAL_SKILLS",
                        "OPENCODE_PURE", "OPENCODE_DISABLE_CLAUDE_CODE"})
    out.env.emplace_back(k, "1");
}

// cursor-agent (not on npm, so not tried here; Cursor's public docs) loads a project's
// .cursor/mcp.json servers, .cursor/rules, .cursor/hooks.json and .cursor/cli.json from the
// folder it runs in, and no flag, variable or managed setting turns that off. What it cannot
// read, it cannot load: the whole folder is masked by an empty one of awaywork's, bound
// read-only at <clone>/.cursor in each agent phase (a missing .cursor gets an empty mount point:
// git ignores an empty folder, the restore between rounds removes it). Without a view (sandbox
// off) nothing masks it (docs/agents.md).
void cursor(const LaunchExtras& x, ProviderLaunch& out) {
  if (x.clone_settings || x.clone.empty()) return;
  out.lent_folders.push_back(
      {x.clone + "/.cursor", {}, "mask: the clone's .cursor (cursor)", /*agent_only=*/true});
}

// opencode 1.18.33 config `mcp` ({type: local, command: [argv], environment}; "{env:NAME}" is
// substituted from its environment). Configured only: no live MCP test for opencode.
nlohmann::json opencode_mcp(const LaunchExtras& x) {
  nlohmann::json servers = nlohmann::json::object();
  for (const auto& [name, s] : x.mcp) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& n : names_of(s)) env[n] = "{env:" + n + "}";
    servers[name] = {
        {"type", "local"}, {"command", s.command}, {"environment", env}, {"enabled", true}};
  }
  return servers;
}

}  // namespace aw::provider_tools
