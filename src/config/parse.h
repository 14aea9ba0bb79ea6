// The sections of the config parser (config_parse.cc, parse_sandbox.cc, parse_entries.cc).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "config/yaml_walk.h"

namespace aw {

// A name one section refers to in another (an agent's `profile:`, `inference:`), checked once the
// whole file is read, and reported at the referring key.
struct NameRef {
  std::string section;  // "profiles" or "inference"
  std::string name;
  YAML::Mark mark;
  std::string path;
};

struct ParseCtx {
  Issues& issues;
  std::string base_dir;  // relative paths resolve here: the config file's folder
  std::string home;      // what ~/ means
  std::vector<NameRef>& refs;
  // Forge repositories (github: or gitlab:), once all is read: those that named no forge
  // (section "forges") get the only one defined; every forge's kind is checked against the key.
  std::vector<NameRef>& implied_forges;
};

// A string checked by one of validate.h's checks; the check's message is the issue (at v).
//   if (auto s = get_checked(v, "write e.g. url: https://...", check_inference_url, ctx.issues))
std::optional<std::string> get_checked(const Value& v, std::string_view hint,
                                       Status (*check)(const std::string&), Issues& issues);
// A path value, expanded (~/, relative to base_dir) and absolute.
std::optional<std::string> get_path(const Value& v, const ParseCtx& ctx, std::string_view hint);
// A list of paths.
std::optional<std::vector<std::string>> get_paths(const Value& v, const ParseCtx& ctx,
                                                  std::string_view hint);

void parse_sandbox(const Value& v, const ParseCtx& ctx, SandboxConfig& out);
// parse_limits.cc: the watchdog's floors (top-level limits:) and max_transcript_bytes.
void parse_watchdog_limits(const Value& v, const ParseCtx& ctx, WatchdogLimits& out);
void parse_transcript_cap(const Value& v, const ParseCtx& ctx, uint64_t& out);
// A size ("4G", "512M": config/size.h) of at least min bytes into out. Below it the issue reads
// "'S' is N bytes, below the MIN_TEXT minimum; ADVICE" (a size that small is surely a slip).
void parse_min_size(const Value& v, const ParseCtx& ctx, std::string_view hint, uint64_t min,
                    std::string_view min_text, std::string_view advice, uint64_t& out);
void parse_agents(const Value& v, const ParseCtx& ctx, std::map<std::string, AgentConfig>& out);
// parse_agent_tools.cc: a list of variable names (env:, secrets:); an agent's mcp: servers and
// plugins: folders.
void parse_env_names(const Value& v, const ParseCtx& ctx, std::string_view hint,
                     std::vector<std::string>& out);
void parse_mcp(const Value& v, const ParseCtx& ctx, std::map<std::string, McpServerConfig>& out);
void parse_plugins(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out);
void parse_repos(const Value& v, const ParseCtx& ctx, std::map<std::string, RepoConfig>& out);
void parse_profiles(const Value& v, const ParseCtx& ctx, std::map<std::string, ProfileConfig>& out);
void parse_inference(const Value& v, const ParseCtx& ctx,
                     std::map<std::string, InferenceConfig>& out);

// 2026-12-31 (the whole day counts, in UTC) or 2026-12-31T18:00:00Z, as Unix seconds.
std::optional<int64_t> parse_instant(const std::string& s);
// The watch: section; read after the rest of the file (it names repos: entries).
void parse_watch(const Value& v, const ParseCtx& ctx, Config& cfg);

// parse_secrets.cc: the secrets: section (injection rules), and its checks against the rest of the
// file (the sandbox's allowlist, profiles and MCP servers that would hand the value to a phase).
void parse_secrets(const Value& v, const ParseCtx& ctx, std::map<std::string, SecretConfig>& out);
void check_secret_bindings(const Value& secrets, const ParseCtx& ctx, const Config& cfg);

// parse_plugin_code.cc: the plugins: section (the owner's plugin code, issue 28); not the agents'
// plugins: folders above, which are Claude Code's.
void parse_plugin_code(const Value& v, const ParseCtx& ctx, PluginsConfig& out);

void parse_forges(const Value& v, const ParseCtx& ctx, std::map<std::string, ForgeConfig>& out);
// A repo entry's forge keys (github:, forge:, task:, trust:, ...); false for any other key.
bool parse_forge_repo_field(const Field& f, const Field& entry, const ParseCtx& ctx,
                            ForgeRepoConfig& out);
extern const std::vector<std::string> kForgeRepoKeys;
// parse_watch.cc: "90", 90, "90s", "30m", "2h", "1d" as seconds from 1 to max; nullopt (and an
// issue at the value naming the example) otherwise.
std::optional<int64_t> get_duration(const Value& v, int64_t max, std::string_view example,
                                    Issues& issues);
// parse_loop.cc: a repo entry's loop:, when: and follow_up: keys; false for any other key.
bool parse_loop_field(const Field& f, const ParseCtx& ctx, RepoConfig& out);
// Each forge repository without forge: gets the only forge defined, else an error at its entry.
void resolve_implied_forges(const ParseCtx& ctx, Config& cfg);
// Each `agent_forge: read` against its forge and the sandbox: an https:// api_url at a host name,
// network: allowlist, and that host in sandbox.allow (the proxy adds the credential there only).
void check_agent_forges(const ParseCtx& ctx, const Config& cfg);

// The named entries of a section (agents:, repos:, profiles:, inference:), with their names
// checked and each value a map.
std::vector<Field> entries(const Value& v, std::string_view example, const ParseCtx& ctx);
// Each of those entries read into out[its name]: a T named after it, then parse(entry, ctx, t).
//   parse_named(v, "repos: {web: {path: ~/src/web}}", ctx, out, parse_repo);
template <class T, class Parse>
void parse_named(const Value& v, std::string_view example, const ParseCtx& ctx,
                 std::map<std::string, T>& out, Parse parse) {
  for (const Field& e : entries(v, example, ctx)) {
    T t;
    t.name = e.key;
    parse(e, ctx, t);
    out[e.key] = std::move(t);
  }
}
// Whether one named entry e of a section may be read: name_ok is its name's check (an issue at
// the key when it failed), and its value must be a map (an issue naming the example otherwise).
//   if (!entry_ok(e, check_profile_name(e.key), kExample, ctx)) continue;
bool entry_ok(const Field& e, const Status& name_ok, std::string_view example, const ParseCtx& ctx);

// A reference to a profile or inference entry; its existence is checked by check_refs.
void add_ref(const Field& f, const std::string& section, const ParseCtx& ctx, std::string& out);
// Every recorded reference names a defined entry, else an error at the referring key.
void check_refs(const ParseCtx& ctx, const Config& cfg);

}  // namespace aw
