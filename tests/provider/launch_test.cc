// provider_launch: what a unit adds for each agent CLI.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "provider/provider.h"
#include "provider/resume.h"

namespace aw {
namespace {

const std::string kUrl = "http://127.0.0.1:41234";
const std::string kToken = "awrt_0123456789abcdef0123456789abcdef";
const std::string kHome = "/tmp/awaywork-Ab12Cd";

std::string env_of(const ProviderLaunch& l, const std::string& name) {
  for (const auto& [k, v] : l.env)
    if (k == name) return v;
  return "<unset>";
}

bool argv_has(const ProviderLaunch& l, const std::string& s) {
  return std::find(l.argv.begin(), l.argv.end(), s) != l.argv.end();
}

ProviderLaunch launch(const std::string& name, const std::string& url = kUrl,
                      std::vector<std::string> argv = {}) {
  const ProviderSpec* spec = find_provider(name);
  EXPECT_NE(spec, nullptr) << name;
  auto l = provider_launch(*spec, argv, url, url.empty() ? "" : kToken, kHome);
  EXPECT_TRUE(l) << (l ? "" : l.error().message);
  return l ? *l : ProviderLaunch{};
}

TEST(ProviderSpec, EveryBuiltinIsFoundByNameAndUnknownIsNull) {
  for (const char* n : {"claude", "codex", "cursor", "opencode", "gemini", "command"})
    EXPECT_NE(find_provider(n), nullptr) << n;
  EXPECT_EQ(find_provider("claude-code"), nullptr);
  EXPECT_EQ(builtin_providers().size(), 6u);
}

TEST(ProviderSpec, EveryBuiltinTakesThePromptOnStdinNeverOnArgv) {
  for (const auto& p : builtin_providers()) {
    EXPECT_TRUE(p.prompt_stdin) << p.name;
    for (const auto& a : p.command) EXPECT_EQ(a.find("{prompt"), std::string::npos) << p.name;
  }
}

TEST(ProviderLaunch, ClaudeTalksToTheProxyWithTheRunTokenAndItsOwnConfigDir) {
  auto l = launch("claude");
  std::vector<std::string> want = find_provider("claude")->command;
  want.insert(want.end(), {"--setting-sources", "user", "--strict-mcp-config"});
  EXPECT_EQ(l.argv, want);
  EXPECT_EQ(env_of(l, "ANTHROPIC_BASE_URL"), kUrl);
  EXPECT_EQ(env_of(l, "ANTHROPIC_API_KEY"), kToken);
  EXPECT_EQ(env_of(l, "CLAUDE_CONFIG_DIR"), kHome + "/.claude");
  EXPECT_EQ(env_of(l, "IS_SANDBOX"), "1");
  EXPECT_EQ(env_of(l, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), "1");
  EXPECT_EQ(l.state_dirs, std::vector<std::string>{kHome + "/.claude"});
  EXPECT_TRUE(argv_has(l, "bypassPermissions"));
}

TEST(ProviderLaunch, ClaudeWithoutProxyGetsNoKeyNorBaseUrl) {
  auto l = launch("claude", "");
  EXPECT_EQ(env_of(l, "ANTHROPIC_BASE_URL"), "<unset>");
  EXPECT_EQ(env_of(l, "ANTHROPIC_API_KEY"), "<unset>");
  EXPECT_EQ(env_of(l, "CLAUDE_CONFIG_DIR"), kHome + "/.claude");
}

TEST(ProviderLaunch, CodexGetsItsModelProviderOnArgvAndTheTokenOnlyInEnv) {
  auto l = launch("codex");
  EXPECT_EQ(env_of(l, "CODEX_HOME"), kHome + "/.codex");
  EXPECT_EQ(env_of(l, kRunTokenEnv), kToken);
  EXPECT_EQ(l.argv.front(), "codex");
  EXPECT_EQ(l.argv[1], "exec");
  EXPECT_EQ(l.argv.back(), "-");  // the prompt from stdin stays the last argument
  EXPECT_TRUE(argv_has(l, "model_provider=\"awaywork\""));
  EXPECT_TRUE(argv_has(l, "model_providers.awaywork.base_url=\"" + kUrl + "/v1\""));
  EXPECT_TRUE(argv_has(l, "model_providers.awaywork.env_key=\"AWAYWORK_RUN_TOKEN\""));
  EXPECT_TRUE(argv_has(l, "model_providers.awaywork.wire_api=\"responses\""));
  for (const auto& a : l.argv) EXPECT_EQ(a.find(kToken), std::string::npos) << a;
}

TEST(ProviderLaunch, CodexOverridesGoAfterTheSubcommandOfAConfiguredArgv) {
  auto l = launch("codex", kUrl, {"/opt/codex/bin/codex", "exec", "--json", "-"});
  EXPECT_EQ(l.argv[0], "/opt/codex/bin/codex");
  EXPECT_EQ(l.argv[1], "exec");
  EXPECT_EQ(l.argv[2], "-c");
  EXPECT_EQ(l.argv.back(), "-");
}

TEST(ProviderLaunch, NoProviderPutsTheRunTokenOnArgv) {
  for (const auto& p : builtin_providers()) {
    if (p.api.empty() && p.name != "command") continue;
    std::vector<std::string> argv =
        p.name == "command" ? std::vector<std::string>{"./agent.sh"} : std::vector<std::string>{};
    auto l = provider_launch(p, argv, kUrl, kToken, kHome);
    ASSERT_TRUE(l) << p.name << ": " << l.error().message;
    for (const auto& a : l->argv) EXPECT_EQ(a.find(kToken), std::string::npos) << p.name;
  }
}

TEST(ProviderLaunch, GeminiAndOpencodeAreRoutedThroughTheProxy) {
  auto g = launch("gemini");
  EXPECT_EQ(env_of(g, "GOOGLE_GEMINI_BASE_URL"), kUrl);
  EXPECT_EQ(env_of(g, "GEMINI_API_KEY"), kToken);
  EXPECT_EQ(env_of(g, "GEMINI_CLI_HOME"), kHome);
  ASSERT_EQ(g.files.size(), 1u);  // the API-key auth type, without which the base URL is refused
  EXPECT_EQ(g.files[0].first, kHome + "/.gemini/settings.json");
  EXPECT_NE(g.files[0].second.find("\"gemini-api-key\""), std::string::npos);
  EXPECT_EQ(g.files[0].second.find(kToken), std::string::npos);
  auto o = launch("opencode");
  EXPECT_NE(env_of(o, "OPENCODE_CONFIG_CONTENT").find("\"baseURL\":\"" + kUrl + "/v1\""),
            std::string::npos);
  EXPECT_EQ(env_of(o, "OPENCODE_CONFIG_CONTENT").find(kToken), std::string::npos);
}

TEST(ProviderLaunch, CursorCannotRunBehindTheProxyAndSaysWhy) {
  auto l = provider_launch(*find_provider("cursor"), {}, kUrl, kToken, kHome);
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().message.find("base URL"), std::string::npos) << l.error().message;
  EXPECT_TRUE(provider_launch(*find_provider("cursor"), {}, "", "", kHome));
}

// cursor-agent has no setting that turns a project's .cursor/ off: its agent phases get an empty
// read-only folder over the clone's, unless the repository opts in.
TEST(ProviderLaunch, CursorsAgentPhasesSeeAnEmptyReadOnlyCursorFolderUnlessOptedIn) {
  LaunchExtras x;
  x.clone = "/tmp/awaywork-Ab12Cd/work";
  auto l = provider_launch(*find_provider("cursor"), {}, "", "", kHome, x);
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->lent_folders.size(), 1u);
  EXPECT_EQ(l->lent_folders[0].target, "/tmp/awaywork-Ab12Cd/work/.cursor");
  EXPECT_TRUE(l->lent_folders[0].files.empty());
  EXPECT_TRUE(l->lent_folders[0].agent_only) << "setup and the checks see the clone's .cursor";
  x.clone_settings = true;
  auto opted = provider_launch(*find_provider("cursor"), {}, "", "", kHome, x);
  ASSERT_TRUE(opted);
  EXPECT_TRUE(opted->lent_folders.empty());
  // The managed settings of the others are for every phase.
  x.clone_settings = false;
  auto c = provider_launch(*find_provider("claude"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->lent_folders.size(), 1u);
  EXPECT_FALSE(c->lent_folders[0].agent_only);
}

TEST(ProviderLaunch, CommandNeedsAnArgvAndGetsTheProxyInEnv) {
  const ProviderSpec& cmd = *find_provider("command");
  EXPECT_FALSE(provider_launch(cmd, {}, "", "", kHome));
  auto l = provider_launch(cmd, {"./agent.sh", "--fast"}, kUrl, kToken, kHome);
  ASSERT_TRUE(l) << l.error().message;
  EXPECT_EQ(l->argv, (std::vector<std::string>{"./agent.sh", "--fast"}));
  EXPECT_EQ(env_of(*l, "AWAYWORK_INFERENCE_URL"), kUrl);
  EXPECT_EQ(env_of(*l, kRunTokenEnv), kToken);
}

TEST(ProviderLaunch, RefusesAProxyWithoutTokenARelativeHomeAndATrailingSlash) {
  const ProviderSpec& claude = *find_provider("claude");
  EXPECT_FALSE(provider_launch(claude, {}, kUrl, "", kHome));
  EXPECT_FALSE(provider_launch(claude, {}, kUrl, kToken, "home"));
  EXPECT_FALSE(provider_launch(claude, {}, kUrl + "/", kToken, kHome));
}

TEST(ProviderLaunch, AConfiguredArgvReplacesTheDefault) {
  auto l =
      launch("claude", kUrl, {"/usr/local/bin/claude", "-p", "--output-format", "stream-json"});
  EXPECT_EQ(l.argv.front(), "/usr/local/bin/claude");
  EXPECT_EQ(l.argv.size(), 7u) << "the four given, then --setting-sources user --strict-mcp-config";
}

TEST(ProviderLaunch, ClaudeGetsReadOnlyManagedSettingsAndNoCloneSettingsUnlessOptedIn) {
  auto l = launch("claude");
  ASSERT_EQ(l.lent_folders.size(), 1u);
  EXPECT_EQ(l.lent_folders[0].target, "/etc/claude-code");
  ASSERT_EQ(l.lent_folders[0].files.size(), 1u);
  EXPECT_EQ(l.lent_folders[0].files[0].first, "managed-settings.json");
  EXPECT_NE(l.lent_folders[0].files[0].second.find("\"allowManagedHooksOnly\": true"),
            std::string::npos);
  LaunchExtras opt_in;
  opt_in.clone_settings = true;
  auto o = provider_launch(*find_provider("claude"), {}, kUrl, kToken, kHome, opt_in);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->argv, find_provider("claude")->command);
  EXPECT_EQ(o->lent_folders[0].files[0].second.find("allowManagedHooksOnly"), std::string::npos);
}

TEST(ProviderLaunch, McpServersAndPluginsGoToEachCliByNameNeverByValue) {
  LaunchExtras x;
  x.clone = "/tmp/awaywork-Ab12Cd/work";
  x.mcp["probe"] = {
      "probe", {"/usr/bin/python3", "server.py", "--x"}, {"HOST_VAR"}, {"TOKEN"}, false, {}, {}};
  x.plugins = {"/opt/plugins/review"};
  auto c = provider_launch(*find_provider("claude"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(c);
  std::string file = kHome + "/.claude/awaywork-mcp.json";
  EXPECT_TRUE(argv_has(*c, "--mcp-config") && argv_has(*c, file));
  EXPECT_TRUE(argv_has(*c, "--plugin-dir") && argv_has(*c, "/opt/plugins/review"));
  EXPECT_EQ(c->readonly_paths, std::vector<std::string>{"/opt/plugins/review"});
  ASSERT_EQ(c->files.size(), 1u);
  auto cfg = nlohmann::json::parse(c->files[0].second);
  EXPECT_EQ(cfg["mcpServers"]["probe"]["command"], "/usr/bin/python3");
  EXPECT_EQ(cfg["mcpServers"]["probe"]["env"]["TOKEN"], "${TOKEN}");
  EXPECT_EQ(c->mcp_env_names, (std::vector<std::string>{"HOST_VAR", "TOKEN"}));

  auto k = provider_launch(*find_provider("codex"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(k);
  EXPECT_TRUE(argv_has(*k, "mcp_servers.probe.command=\"/usr/bin/python3\""));
  EXPECT_TRUE(argv_has(*k, "mcp_servers.probe.env_vars=[\"HOST_VAR\",\"TOKEN\"]"));
  ASSERT_EQ(k->lent_folders.size(), 1u);
  EXPECT_EQ(k->lent_folders[0].target, "/etc/codex");
  EXPECT_EQ(k->lent_folders[0].files[0].first, "managed_config.toml");
  EXPECT_EQ(k->lent_folders[0].files[0].second,
            "[projects.\"/tmp/awaywork-Ab12Cd/work\"]\ntrust_level = \"untrusted\"\n");
  EXPECT_EQ(k->argv.back(), "-") << "the prompt marker stays last";

  auto g = provider_launch(*find_provider("gemini"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(g);
  ASSERT_EQ(g->lent_folders.size(), 1u);
  EXPECT_EQ(g->lent_folders[0].target, "/etc/gemini-cli");
  auto gs = nlohmann::json::parse(g->lent_folders[0].files[0].second);
  EXPECT_EQ(gs["mcpServers"]["probe"]["env"]["TOKEN"], "$TOKEN");
  EXPECT_EQ(gs["hooksConfig"]["enabled"], false);
  EXPECT_EQ(gs["mcp"]["allowed"], nlohmann::json::array({"probe"}));
  // The user settings carry the same keys, for an owner whose phase gemini skips the system file.
  ASSERT_EQ(g->files.size(), 1u);
  auto us = nlohmann::json::parse(g->files[0].second);
  EXPECT_EQ(us["hooksConfig"]["enabled"], false);
  EXPECT_EQ(us["mcp"]["allowed"], nlohmann::json::array({"probe"}));
  EXPECT_EQ(us["general"]["enableAutoUpdate"], false) << "awaywork's own user keys stay";
  auto oc = provider_launch(*find_provider("opencode"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(oc);
  auto ocfg = nlohmann::json::parse(env_of(*oc, "OPENCODE_CONFIG_CONTENT"));
  EXPECT_EQ(ocfg["mcp"]["probe"]["environment"]["TOKEN"], "{env:TOKEN}");
  EXPECT_EQ(ocfg["mcp"]["probe"]["command"][0], "/usr/bin/python3");
}

TEST(ProviderLaunch, CodexGeminiAndOpencodeLeaveTheClonesSettingsAloneOnlyWhenOptedIn) {
  LaunchExtras x;
  x.clone = "/tmp/awaywork-Ab12Cd/work";
  // No server configured: gemini's allowlist still filters (an empty one would allow all).
  auto g = provider_launch(*find_provider("gemini"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(g);
  auto gs = nlohmann::json::parse(g->lent_folders[0].files[0].second);
  ASSERT_EQ(gs["mcp"]["allowed"].size(), 1u);
  EXPECT_EQ(gs["mcp"]["allowed"], gs["mcp"]["excluded"]);
  auto oc = provider_launch(*find_provider("opencode"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(oc);
  for (const char* k : {"OPENCODE_DISABLE_PROJECT_CONFIG", "OPENCODE_DISABLE_EXTERNAL_SKILLS",
                        "OPENCODE_PURE", "OPENCODE_DISABLE_CLAUDE_CODE"})
    EXPECT_EQ(env_of(*oc, k), "1") << k;
  x.clone_settings = true;
  auto opted = provider_launch(*find_provider("opencode"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(opted);
  EXPECT_EQ(env_of(*opted, "OPENCODE_DISABLE_PROJECT_CONFIG"), "<unset>");
  auto k = provider_launch(*find_provider("codex"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(k);
  ASSERT_EQ(k->lent_folders.size(), 1u) << "opted in, the managed layer trusts the clone";
  EXPECT_EQ(k->lent_folders[0].files[0].second,
            "[projects.\"/tmp/awaywork-Ab12Cd/work\"]\ntrust_level = \"trusted\"\n");
}

TEST(PromptFile, EveryPlaceholderIsReplacedAndNoneIsAnError) {
  auto argv = with_prompt_file({"agent", "--task", "{prompt_file}", "--file={prompt_file}"},
                               "/tmp/awaywork-Ab12Cd/prompt.md");
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_EQ(*argv, (std::vector<std::string>{"agent", "--task", "/tmp/awaywork-Ab12Cd/prompt.md",
                                             "--file=/tmp/awaywork-Ab12Cd/prompt.md"}));
  EXPECT_FALSE(with_prompt_file({"agent", "--task"}, "/p"));
  auto odd = with_prompt_file({"{prompt_file}"}, "/x/{prompt_file}");  // no endless loop
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->front(), "/x/{prompt_file}");
}

// Issue 26 item 6: continuing a pull request's session (provider/resume.h).
const std::string kSession = "0f3c9a2e-5b7d-4e1a-9c2b-8d6f4a1e7b30";

TEST(ProviderResume, ClaudeResumesWithTheFlagAfterItsOwnOptions) {
  LaunchExtras x;
  x.resume_id = kSession;
  auto l = provider_launch(*find_provider("claude"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_GE(l->argv.size(), 3u);
  EXPECT_EQ(l->argv[l->argv.size() - 2], "--resume");
  EXPECT_EQ(l->argv.back(), kSession);
  EXPECT_TRUE(argv_has(*l, "--setting-sources"));  // awaywork's own options stay
  // Without a session: no flag.
  EXPECT_FALSE(argv_has(launch("claude"), "--resume"));
}

TEST(ProviderResume, CodexResumesAsExecsSubcommandWithThePromptFromStdin) {
  LaunchExtras x;
  x.resume_id = kSession;
  auto l = provider_launch(*find_provider("codex"), {}, kUrl, kToken, kHome, x);
  ASSERT_TRUE(l) << l.error().message;
  const auto& a = l->argv;
  ASSERT_GE(a.size(), 5u);
  EXPECT_EQ(a[1], "exec");
  EXPECT_EQ(std::vector<std::string>(a.end() - 3, a.end()),
            (std::vector<std::string>{"resume", kSession, "-"}));
  EXPECT_EQ(std::count(a.begin(), a.end(), "-"), 1);
  // exec's options and awaywork's -c overrides come before the subcommand.
  auto resume = std::find(a.begin(), a.end(), "resume");
  EXPECT_LT(std::find(a.begin(), a.end(), "--json"), resume);
  EXPECT_LT(std::find(a.begin(), a.end(), "-c"), resume);
}

TEST(ProviderResume, OnlyClaudeAndCodexResumeAndOnlyAUuid) {
  for (const char* p : {"cursor", "opencode", "gemini", "command"}) {
    EXPECT_FALSE(session_files(*find_provider(p))) << p;
    LaunchExtras x;
    x.resume_id = kSession;
    EXPECT_FALSE(provider_launch(*find_provider(p), {"agent"}, "", "", kHome, x)) << p;
  }
  const ProviderSpec& claude = *find_provider("claude");
  EXPECT_FALSE(with_resume(claude, {"claude"}, "--dangerously-skip-permissions"));
  EXPECT_FALSE(with_resume(claude, {"claude"}, ""));
  // codex: a configured command that does not read the prompt from stdin cannot be resumed.
  EXPECT_FALSE(with_resume(*find_provider("codex"), {"codex", "exec", "do it"}, kSession));
}

TEST(ProviderResume, SessionFilesAreKnownByTheirShapeAlone) {
  const ProviderSpec& claude = *find_provider("claude");
  const ProviderSpec& codex = *find_provider("codex");
  EXPECT_EQ(session_files(claude)->root, ".claude/projects");
  EXPECT_EQ(session_files(codex)->root, ".codex/sessions");
  EXPECT_TRUE(is_session_file(claude, "-tmp-run-work/" + kSession + ".jsonl"));
  EXPECT_EQ(session_id(claude, "-tmp-run-work/" + kSession + ".jsonl"), kSession);
  for (const std::string& bad :
       std::vector<std::string>{kSession + ".jsonl", "p/agent-1234abcd.jsonl",
                                "p/" + kSession + ".json", "p/q/" + kSession + ".jsonl",
                                "../" + kSession + ".jsonl", ".hidden/" + kSession + ".jsonl"})
    EXPECT_FALSE(is_session_file(claude, bad)) << bad;
  std::string rollout = "2026/12/06/rollout-2026-12-06T05-01-02-" + kSession + ".jsonl";
  EXPECT_TRUE(is_session_file(codex, rollout));
  EXPECT_EQ(session_id(codex, rollout), kSession);
  for (const std::string& bad : std::vector<std::string>{
           "2026/12/rollout-x-" + kSession + ".jsonl", "2026/12/06/history-" + kSession + ".jsonl",
           "2026/12/06/rollout-x.jsonl", "20xx/12/06/rollout-x-" + kSession + ".jsonl"})
    EXPECT_FALSE(is_session_file(codex, bad)) << bad;
  EXPECT_FALSE(is_session_file(*find_provider("gemini"), "-p/" + kSession + ".jsonl"));
}

TEST(ProviderResume, ClaudesSessionMovesToTheNewClonesProjectFolder) {
  const ProviderSpec& claude = *find_provider("claude");
  EXPECT_EQ(session_place(claude, "-old-runs-a-work/" + kSession + ".jsonl",
                          "/home/o/.local/state/awaywork/runs/b_1/work"),
            "-home-o--local-state-awaywork-runs-b-1-work/" + kSession + ".jsonl");
  std::string rollout = "2026/12/06/rollout-2026-12-06T05-01-02-" + kSession + ".jsonl";
  EXPECT_EQ(session_place(*find_provider("codex"), rollout, "/x/work"), rollout);
}

}  // namespace
}  // namespace aw
