#include "provider/provider.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/json_write.h"
#include "provider/agent_tools.h"
#include "provider/resume.h"

namespace aw {

namespace {

// Flags checked against each CLI's --help (claude 2.1.332, codex 0.171.0, gemini 0.61.0,
// opencode 1.18.33); cursor-agent is not on npm, its flags come from Cursor's public docs.
std::vector<ProviderSpec> make_builtins() {
  return {
      // bypassPermissions: no question can block an unattended run; awaywork's sandbox is the
      // boundary. As root (uid 0 in a user namespace too) claude refuses it unless IS_SANDBOX=1.
      {"claude",
       {"claude", "-p", "--output-format", "stream-json", "--verbose", "--permission-mode",
        "bypassPermissions"},
       true,
       "anthropic",
       "claude"},
      // Codex's own sandbox is a bundled bwrap. Tried on 0.171.0: with CODEX_HOME under /tmp
      // (a unit's HOME is /tmp/awaywork-XXXXXX) codex will not create its helper alias and
      // every sandboxed command fails ("bwrap: execvp codex-linux-sandbox"); nested in a pid
      // namespace bwrap fails on /proc ("open /proc/N/ns/ns"); and awaywork's seccomp denies
      // the mount(2) bwrap needs. awaywork's sandbox is the boundary instead.
      {"codex",
       {"codex", "exec", "--json", "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox", "-"},
       true,
       "openai",
       "codex"},
      {"cursor",
       {"cursor-agent", "-p", "--output-format", "stream-json", "--force"},
       true,
       "",
       "cursor-agent"},
      // `opencode run` reads the message from stdin when it is not a TTY; --auto approves
      // every permission not explicitly denied (it would otherwise reject and stop).
      {"opencode",
       {"opencode", "run", "--format", "json", "--auto"},
       true,
       "anthropic",
       "opencode"},
      // Headless whenever stdin is not a TTY; the prompt is read from stdin.
      {"gemini",
       {"gemini", "--output-format", "stream-json", "--yolo", "--skip-trust"},
       true,
       "gemini",
       "gemini"},
      {"command", {}, true, "", ""},
  };
}

using Env = std::vector<std::pair<std::string, std::string>>;

void claude_env(Env& env, const std::string& url, const std::string& token,
                const std::string& home) {
  env.emplace_back("CLAUDE_CONFIG_DIR", home + "/.claude");
  env.emplace_back("IS_SANDBOX", "1");
  env.emplace_back("DISABLE_AUTOUPDATER", "1");
  env.emplace_back("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
  env.emplace_back("DISABLE_TELEMETRY", "1");
  env.emplace_back("DISABLE_ERROR_REPORTING", "1");
  env.emplace_back("DISABLE_BUG_COMMAND", "1");
  if (url.empty()) return;
  env.emplace_back("ANTHROPIC_BASE_URL", url);
  env.emplace_back("ANTHROPIC_API_KEY", token);
}

// `-c` overrides, accepted by `codex exec` (checked with --strict-config on 0.171.0). The
// provider id "awaywork" keeps codex from applying its built-in openai provider's login.
std::vector<std::string> codex_overrides(const std::string& url) {
  std::vector<std::string> kv = {
      "check_for_update_on_startup=false",
      "analytics.enabled=false",
      "feedback.enabled=false",
  };
  if (!url.empty()) {
    kv.insert(kv.end(), {
                            "model_provider=\"awaywork\"",
                            "model_providers.awaywork.name=\"awaywork\"",
                            fmt::format("model_providers.awaywork.base_url=\"{}/v1\"", url),
                            fmt::format("model_providers.awaywork.env_key=\"{}\"", kRunTokenEnv),
                            "model_providers.awaywork.wire_api=\"responses\"",
                        });
  }
  std::vector<std::string> argv;
  for (auto& s : kv) {
    argv.push_back("-c");
    argv.push_back(std::move(s));
  }
  return argv;
}

// Insert after the subcommand when argv starts with "<program> exec", else after argv[0]:
// codex takes -c at both levels, and a trailing "-" must stay last.
void insert_after_subcommand(std::vector<std::string>& argv, std::vector<std::string> extra) {
  size_t at = argv.size() > 1 && argv[1] == "exec" ? 2 : 1;
  argv.insert(argv.begin() + static_cast<long>(std::min(at, argv.size())), extra.begin(),
              extra.end());
}

void opencode_env(Env& env, const std::string& url, const std::string& token,
                  const nlohmann::json& mcp) {
  // No network but the model's: no update check, models.dev list, LSP download or sharing.
  for (const char* k : {"OPENCODE_DISABLE_AUTOUPDATE", "OPENCODE_DISABLE_MODELS_FETCH",
                        "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_SHARE"})
    env.emplace_back(k, "1");
  if (url.empty() && mcp.empty()) return;
  nlohmann::json cfg = {
      {"$schema", "https://opencode.ai/config.json"}, {"autoupdate", false}, {"share", "disabled"}};
  if (!mcp.empty()) cfg["mcp"] = mcp;
  if (!url.empty())
    cfg["provider"] = {
        {"anthropic",
         {{"options",
           {{"baseURL", url + "/v1"}, {"apiKey", fmt::format("{{env:{}}}", kRunTokenEnv)}}}}}};
  env.emplace_back("OPENCODE_CONFIG_CONTENT", json_text(cfg));
  if (url.empty()) return;
  env.emplace_back(kRunTokenEnv, token);
  env.emplace_back("ANTHROPIC_API_KEY", token);
}

// Gemini CLI 0.61.0 turns GOOGLE_GEMINI_BASE_URL alone into a "gateway" auth type that its own
// check then refuses ("Invalid auth method selected"): the API-key auth type must be chosen in
// settings.json, and with it the base URL is honoured. No usage statistics, no auto update.
std::string gemini_settings(const std::string& url) {
  nlohmann::json s = {{"general", {{"enableAutoUpdate", false}}},
                      {"privacy", {{"usageStatisticsEnabled", false}}}};
  if (!url.empty()) s["security"] = {{"auth", {{"selectedType", "gemini-api-key"}}}};
  return json_text(s, 2) + "\n";
}

}  // namespace

const std::vector<ProviderSpec>& builtin_providers() {
  static const std::vector<ProviderSpec> specs = make_builtins();  // immutable after init
  return specs;
}

const ProviderSpec* find_provider(std::string_view name) {
  for (const auto& p : builtin_providers())
    if (p.name == name) return &p;
  return nullptr;
}

Result<ProviderLaunch> provider_launch(const ProviderSpec& spec,
                                       const std::vector<std::string>& configured_argv,
                                       const std::string& proxy_url, const std::string& run_token,
                                       const std::string& unit_home, const LaunchExtras& extras) {
  ProviderLaunch out;
  out.argv = configured_argv.empty() ? spec.command : configured_argv;
  if (out.argv.empty())
    return fail("provider {}: no command (set agent.command in the config)", spec.name);
  if (unit_home.empty() || unit_home.front() != '/')
    return fail("provider {}: the unit's HOME must be an absolute path, got '{}'", spec.name,
                unit_home);
  if (!proxy_url.empty()) {
    if (spec.api.empty() && spec.name != "command")
      return fail(
          "provider {}: {} has no setting for its API base URL, so it cannot run behind "
          "the inference proxy; set inference: direct for it",
          spec.name, out.argv.front());
    if (run_token.empty()) return fail("provider {}: a proxy URL needs a run token", spec.name);
    if (proxy_url.back() == '/')
      return fail("provider {}: proxy URL '{}' must not end with '/'", spec.name, proxy_url);
  }
  const std::string& url = proxy_url;
  if (spec.name == "claude") {
    claude_env(out.env, url, run_token, unit_home);
    out.state_dirs = {unit_home + "/.claude"};
    provider_tools::claude(extras, unit_home, out);
  } else if (spec.name == "codex") {
    out.env.emplace_back("CODEX_HOME", unit_home + "/.codex");
    if (!url.empty()) out.env.emplace_back(kRunTokenEnv, run_token);
    auto kv = codex_overrides(url);
    auto tools = provider_tools::codex(extras, out);
    kv.insert(kv.end(), tools.begin(), tools.end());
    insert_after_subcommand(out.argv, std::move(kv));
    out.state_dirs = {unit_home + "/.codex"};
  } else if (spec.name == "gemini") {
    out.env.emplace_back("GEMINI_CLI_HOME", unit_home);
    if (!url.empty()) {
      out.env.emplace_back("GOOGLE_GEMINI_BASE_URL", url);
      out.env.emplace_back("GEMINI_API_KEY", run_token);
    }
    out.state_dirs = {unit_home + "/.gemini"};
    out.files.emplace_back(unit_home + "/.gemini/settings.json", gemini_settings(url));
    provider_tools::gemini(extras, out);
  } else if (spec.name == "opencode") {
    opencode_env(out.env, url, run_token, provider_tools::opencode_mcp(extras));
    provider_tools::opencode(extras, out);
    out.state_dirs = {unit_home + "/.config/opencode", unit_home + "/.local/share/opencode"};
  } else if (spec.name == "cursor") {
    out.state_dirs = {unit_home + "/.cursor"};
    provider_tools::cursor(extras, out);
  } else if (!url.empty()) {
    // `command` (or an unknown name configured by hand): the script chooses what to read.
    out.env.emplace_back("AWAYWORK_INFERENCE_URL", url);
    out.env.emplace_back(kRunTokenEnv, run_token);
  }
  out.mcp_env_names = provider_tools::mcp_names(extras);
  // Last: codex's resume takes the argv's trailing "-", after every option above.
  if (!extras.resume_id.empty()) {
    AW_TRY(out.argv, with_resume(spec, std::move(out.argv), extras.resume_id));
  }
  return out;
}

Result<std::vector<std::string>> with_prompt_file(std::vector<std::string> argv,
                                                  const std::string& path) {
  static constexpr std::string_view kMark = "{prompt_file}";
  bool found = false;
  for (auto& a : argv)
    for (size_t at = a.find(kMark); at != std::string::npos; at = a.find(kMark, at + path.size())) {
      a.replace(at, kMark.size(), path);
      found = true;
    }
  if (!found) return fail("the agent's argv has no {{prompt_file}} for the prompt file");
  return argv;
}

}  // namespace aw
