// agents.NAME.mcp, agents.NAME.plugins and repos.NAME.agent_settings: each lands in its field,
// and each mistake is refused at its file:line:col with the fix.
#include <gtest/gtest.h>

#include "config_fixture.h"

namespace aw {
namespace {

class AgentToolsConfig : public ConfigFixture {};

TEST_F(AgentToolsConfig, McpPluginsAndAgentSettingsLandInTheirFields) {
  Config c = parse(R"(agents:
  claude:
    provider: claude
    plugins: [~/plugins/review, /opt/skills]
    mcp:
      github:
        command: "github-mcp-server stdio"
        env: [GITHUB_HOST]
        secrets: [GITHUB_MCP_TOKEN]
repos:
  site: {path: /src/site, agent_settings: clone}
  other: {path: /src/other}
)");
  const AgentConfig& a = c.agents.at("claude");
  EXPECT_EQ(a.plugins, (std::vector<std::string>{"/home/tester/plugins/review", "/opt/skills"}));
  ASSERT_EQ(a.mcp.size(), 1u);
  const McpServerConfig& m = a.mcp.at("github");
  EXPECT_EQ(m.name, "github");
  EXPECT_EQ(m.command, (Argv{"github-mcp-server", "stdio"}));
  EXPECT_EQ(m.env, (std::vector<std::string>{"GITHUB_HOST"}));
  EXPECT_EQ(m.secrets, (std::vector<std::string>{"GITHUB_MCP_TOKEN"}));
  EXPECT_TRUE(c.repos.at("site").clone_agent_settings);
  EXPECT_FALSE(c.repos.at("other").clone_agent_settings);
}

TEST_F(AgentToolsConfig, BadMcpEntriesAreRefusedWhereTheyAre) {
  EXPECT_EQ(error_of("agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {env: [X]}\n"),
            "config.yml:5:7: agents.a.mcp.gh: missing 'command'; add the server's program and "
            "arguments, e.g. command: [npx, -y, '@modelcontextprotocol/server-filesystem', "
            "/work]");
  std::string e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {command: x, secret: [T]}\n");
  EXPECT_NE(e.find("config.yml:5:24: agents.a.mcp.gh.secret: unknown key; did you mean "
                   "'secrets'?"),
            std::string::npos)
      << e;
  e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {command: x, secrets: [1BAD]}\n");
  EXPECT_NE(e.find("config.yml:5:34: agents.a.mcp.gh.secrets[0]"), std::string::npos) << e;
  e = error_of("agents:\n  a:\n    command: ./agent\n    mcp:\n      gh: {command: x}\n");
  EXPECT_NE(e.find("config.yml:2:3: agents.a.mcp: mcp: servers are written into the config of a "
                   "built-in CLI"),
            std::string::npos)
      << e;
  e = error_of("agents:\n  a:\n    provider: claude\n    mcp: [gh]\n");
  EXPECT_NE(e.find("config.yml:4:10: agents.a.mcp"), std::string::npos) << e;
}

// run: outside (issue 27 item 3): awaywork starts the server in a sandbox of its own, with the
// hosts and paths it declares.
TEST_F(AgentToolsConfig, AnMcpServerRunOutsideKeepsItsHostsAndPaths) {
  Config c = parse(R"(agents:
  claude:
    provider: claude
    mcp:
      github:
        run: outside
        command: [/opt/gh/github-mcp-server, stdio]
        net: [api.github.com]
        read: [~/mcp/github/]
        secrets: [GITHUB_MCP_TOKEN]
      local:
        command: [local-mcp]
        run: inside
)");
  const AgentConfig& a = c.agents.at("claude");
  const McpServerConfig& m = a.mcp.at("github");
  EXPECT_TRUE(m.outside);
  EXPECT_EQ(m.net, (std::vector<std::string>{"api.github.com"}));
  EXPECT_EQ(m.read, (std::vector<std::string>{"/home/tester/mcp/github"}));
  EXPECT_EQ(m.secrets, (std::vector<std::string>{"GITHUB_MCP_TOKEN"}));
  EXPECT_EQ(m.line, 5);
  EXPECT_FALSE(a.mcp.at("local").outside);  // inside is the default and may be written
}

TEST_F(AgentToolsConfig, BadOutsideMcpEntriesAreRefusedWhereTheyAre) {
  std::string e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {command: x, run: somewhere}\n");
  EXPECT_NE(e.find("config.yml:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("agents.a.mcp.gh.run: unknown value 'somewhere'; write run: inside"),
            std::string::npos)
      << e;
  // net: and read: mean nothing for a server the CLI starts inside the unit: refused, not ignored.
  e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {command: x, net: [a.com]}\n");
  EXPECT_NE(e.find("config.yml:5:24: agents.a.mcp.gh.net: net: applies to a server awaywork runs "
                   "outside the unit; add run: outside"),
            std::string::npos)
      << e;
  e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n      gh: {command: x, read: [/opt/x]}\n");
  EXPECT_NE(e.find("config.yml:5:24: agents.a.mcp.gh.read: read: applies to a server"),
            std::string::npos)
      << e;
  e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n"
      "      gh: {command: x, run: outside, read: [\"~\"]}\n");
  EXPECT_NE(e.find("would lend the MCP server all of / or your home"), std::string::npos) << e;
  e = error_of(
      "agents:\n  a:\n    provider: claude\n    mcp:\n"
      "      gh: {command: x, run: outside, net: [\"http://a.com/\"]}\n");
  EXPECT_NE(e.find("agents.a.mcp.gh.net"), std::string::npos) << e;
  EXPECT_NE(e.find("a server run outside reaches only the hosts named here"), std::string::npos)
      << e;
}

TEST_F(AgentToolsConfig, BadPluginsAndAgentSettingsAreRefused) {
  std::string e = error_of("agents:\n  a:\n    provider: codex\n    plugins: [/opt/p]\n");
  EXPECT_NE(e.find("config.yml:2:3: agents.a.plugins: plugins: folders are handed to Claude Code"),
            std::string::npos)
      << e;
  e = error_of("agents:\n  a:\n    provider: claude\n    plugins: /opt/p\n");
  EXPECT_NE(e.find("config.yml:4:14: agents.a.plugins"), std::string::npos) << e;
  e = error_of("agents:\n  a:\n    provider: claude\n    plugins: [\"~\"]\n");
  EXPECT_NE(e.find("a plugin folder must be the plugin's own folder"), std::string::npos) << e;
  e = error_of("repos:\n  r: {path: /x, agent_settings: clones}\n");
  EXPECT_NE(e.find("config.yml:2:33: repos.r.agent_settings: 'clones' is not one of awaywork, "
                   "clone"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace aw
