// The valid side of parse_config: every key lands in its field, defaults fill the rest.
#include <gtest/gtest.h>

#include "config/config.h"
#include "env_guard.h"

namespace aw {
namespace {

class ConfigParse : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.set("HOME", "/home/tester");
    env_.set("XDG_STATE_HOME", nullptr);
  }
  Config parse(const std::string& text, const std::string& file = "/etc/aw/config.yml") {
    auto r = parse_config(text, file);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : Config{};
  }
  EnvGuard env_;
};

constexpr const char* kFull = R"(
isolation: container
agent: claude
unit_minutes: 90
state_dir: ~/state/aw
sandbox:
  mode: required
  network: allowlist
  allow: [example.com, "*.PyPI.org"]
  writable: [~/cache/x, rel/dir, /abs/./w/]
  hidden: [~/secret]
  readable: [~/notes/api]
  limits: {memory: 512M, pids: 100, cpu: 1.5}
agents:
  claude:
    command: "claude -p --model 'opus 4'"
    prompt: stdin
    env: [OPENAI_BASE_URL, _X1]
  codex:
    command: [codex, exec, "--full-auto"]
    prompt: file
repos:
  web:
    path: ~/src/web
    base: main
    setup: "npm ci"
    checks: ["npm test", [make, lint]]
    image: node:20-bookworm
  lib:
    url: https://example.com/x.git
    setup: [sh, -c, "make deps && make"]
)";

TEST_F(ConfigParse, FullConfigFillsEveryField) {
  Config c = parse(kFull);
  EXPECT_EQ(c.file, "/etc/aw/config.yml");
  EXPECT_EQ(c.isolation, Isolation::container);
  EXPECT_EQ(c.default_agent, "claude");
  EXPECT_EQ(c.unit_minutes, 90);
  EXPECT_EQ(c.state_dir, "/home/tester/state/aw");
  EXPECT_EQ(c.sandbox.mode, SandboxMode::required);
  EXPECT_EQ(c.sandbox.network, Network::allowlist);
  EXPECT_EQ(c.sandbox.allow, (std::vector<std::string>{"example.com", "*.pypi.org"}));
  EXPECT_EQ(c.sandbox.writable,
            (std::vector<std::string>{"/home/tester/cache/x", "/etc/aw/rel/dir", "/abs/w"}));
  EXPECT_EQ(c.sandbox.hidden, (std::vector<std::string>{"/home/tester/secret"}));
  EXPECT_EQ(c.sandbox.readable, (std::vector<std::string>{"/home/tester/notes/api"}));
  EXPECT_EQ(c.sandbox.limits.memory_bytes, 512ull << 20);
  EXPECT_EQ(c.sandbox.limits.pids, 100);
  EXPECT_DOUBLE_EQ(c.sandbox.limits.cpus, 1.5);

  ASSERT_EQ(c.agents.size(), 2u);
  const AgentConfig& claude = c.agents.at("claude");
  EXPECT_EQ(claude.name, "claude");
  EXPECT_EQ(claude.command, (Argv{"claude", "-p", "--model", "opus 4"}));
  EXPECT_EQ(claude.prompt, PromptMode::stdin_pipe);
  EXPECT_EQ(claude.env, (std::vector<std::string>{"OPENAI_BASE_URL", "_X1"}));
  const AgentConfig& codex = c.agents.at("codex");
  EXPECT_EQ(codex.command, (Argv{"codex", "exec", "--full-auto"}));
  EXPECT_EQ(codex.prompt, PromptMode::file);
  EXPECT_TRUE(codex.env.empty());

  ASSERT_EQ(c.repos.size(), 2u);
  const RepoConfig& web = c.repos.at("web");
  EXPECT_EQ(web.name, "web");
  EXPECT_EQ(web.path, "/home/tester/src/web");
  EXPECT_EQ(web.url, "");
  EXPECT_EQ(web.base, "main");
  EXPECT_EQ(web.setup, (Argv{"npm", "ci"}));
  EXPECT_EQ(web.checks, (std::vector<Argv>{{"npm", "test"}, {"make", "lint"}}));
  EXPECT_EQ(web.image, "node:20-bookworm");
  const RepoConfig& lib = c.repos.at("lib");
  EXPECT_EQ(lib.path, "");
  EXPECT_EQ(lib.url, "https://example.com/x.git");
  EXPECT_EQ(lib.base, "");
  EXPECT_EQ(lib.setup, (Argv{"sh", "-c", "make deps && make"}));
  EXPECT_TRUE(lib.checks.empty());
}

TEST_F(ConfigParse, EmptyTextAndCommentsOnlyAreTheDefaults) {
  for (const char* text : {"", "# nothing yet\n", "---\n"}) {
    Config c = parse(text);
    EXPECT_EQ(c.isolation, Isolation::none) << text;
    EXPECT_EQ(c.sandbox.mode, SandboxMode::required);
    EXPECT_EQ(c.sandbox.network, Network::none);
    EXPECT_EQ(c.sandbox.limits.memory_bytes, 4ull << 30);
    EXPECT_EQ(c.sandbox.limits.pids, 512);
    EXPECT_DOUBLE_EQ(c.sandbox.limits.cpus, 2.0);
    EXPECT_EQ(c.unit_minutes, 60);
    EXPECT_EQ(c.state_dir, "/home/tester/.local/state/awaywork");
    EXPECT_EQ(c.default_agent, "");
    EXPECT_TRUE(c.agents.empty());
    EXPECT_TRUE(c.repos.empty());
  }
}

TEST_F(ConfigParse, StateDirDefaultFollowsAbsoluteXdgStateHomeOnly) {
  env_.set("XDG_STATE_HOME", "/var/xdg");
  EXPECT_EQ(parse("").state_dir, "/var/xdg/awaywork");
  env_.set("XDG_STATE_HOME", "relative/xdg");  // the XDG spec says: ignore a relative one
  EXPECT_EQ(parse("").state_dir, "/home/tester/.local/state/awaywork");
}

TEST_F(ConfigParse, ASingleAgentIsTheDefaultWithoutAgentKey) {
  EXPECT_EQ(parse("agents: {a: {command: x}}").default_agent, "a");
  EXPECT_EQ(parse("agents: {a: {command: x}, b: {command: y}}").default_agent, "");
}

TEST_F(ConfigParse, YamlBooleanLookalikesAreReadAsTheWordsWritten) {
  // YAML 1.1 reads `off` as false; the schema wants the word.
  EXPECT_EQ(parse("sandbox: {mode: off}").sandbox.mode, SandboxMode::off);
}

TEST_F(ConfigParse, TildeAloneIsHomeAndRelativePathsFollowTheConfigFolder) {
  Config c = parse("sandbox: {writable: [\"~\", ./a/../b, ../up]}", "/etc/aw/sub/config.yml");
  EXPECT_EQ(c.sandbox.writable,
            (std::vector<std::string>{"/home/tester", "/etc/aw/sub/b", "/etc/aw/up"}));
}

TEST_F(ConfigParse, QuotedNumbersAndPlainIntegersBothWorkAsValues) {
  Config c = parse("unit_minutes: \"30\"\nsandbox: {limits: {memory: 1073741824, pids: '7'}}");
  EXPECT_EQ(c.unit_minutes, 30);
  EXPECT_EQ(c.sandbox.limits.memory_bytes, 1ull << 30);
  EXPECT_EQ(c.sandbox.limits.pids, 7);
}

TEST_F(ConfigParse, ScpLikeAndSshUrlsAreAccepted) {
  Config c =
      parse("repos:\n  a: {url: 'git@github.com:o/r.git'}\n  b: {url: 'ssh://git@h.example/r'}\n");
  EXPECT_EQ(c.repos.at("a").url, "git@github.com:o/r.git");
  EXPECT_EQ(c.repos.at("b").url, "ssh://git@h.example/r");
}

TEST(ConfigToString, EnumsPrintAsTheirConfigWords) {
  EXPECT_STREQ(to_string(Isolation::user), "user");
  EXPECT_STREQ(to_string(SandboxMode::required), "required");
  EXPECT_STREQ(to_string(Network::allowlist), "allowlist");
}

TEST_F(ConfigParse, LimitsOffTurnsCgroupLimitsOff) {
  auto c = parse_config("sandbox: {limits: off}\n", "config.yml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->sandbox.limits.enabled);
  auto d = parse_config("sandbox: {limits: {pids: 9}}\n", "config.yml");
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->sandbox.limits.enabled);
  EXPECT_EQ(d->sandbox.limits.pids, 9);
}

}  // namespace
}  // namespace aw
