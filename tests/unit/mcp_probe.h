// What the pipeline tests of an MCP server run outside the unit (issue 27 item 3) share, whatever
// the isolation: the server's fake secret, its files (tests/unit/mcp/probe_server.py and the
// owner's note its sandbox hides), its config entry, and the check of what the agent's stand-in
// learnt. Each isolation's stand-in (a script in Claude Code's place: it reads the --mcp-config
// the unit writes, starts the relay the config names and speaks MCP over its stdio) writes the
// same lines: RELAY, CONFIG_NAMES_SECRET, AGENT_ENV_HAS_SECRET, SERVER, ANSWER, SECRET_MATCHES,
// HIDDEN, SERVER_UID, or ERROR.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace aw::test {

// Shaped like a GitHub token (an MCP server's typical secret); valid nowhere.
inline const std::string kMcpToken = "ghp_FAKEmcpFAKEmcpFAKEmcpFAKEmcpFAKE5678";

// probe_server.py copied into mcp_dir (the server's `read:` path) and hidden/secret.txt, the
// owner's private note that the server's sandbox hides (`sandbox: hidden`).
inline void make_probe_server_files(const std::string& mcp_dir, const std::string& hidden) {
  std::filesystem::create_directories(mcp_dir);
  std::filesystem::copy_file(std::string(AW_SOURCE_DIR) + "/tests/unit/mcp/probe_server.py",
                             mcp_dir + "/probe_server.py",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::create_directories(hidden);
  std::ofstream(hidden + "/secret.txt") << "owner's private note\n";
}

// The agent's `mcp:` entry (under agents.NAME) for the probe server, run outside with its secret
// MCP_PROBE_TOKEN from the store and mcp_dir readable.
inline std::string probe_server_outside_entry(const std::string& mcp_dir,
                                              const std::string& hidden) {
  return fmt::format(
      "    mcp:\n      probe:\n        command: [/usr/bin/python3, {0}/probe_server.py, "
      "--hidden, {1}/secret.txt]\n        secrets: [MCP_PROBE_TOKEN]\n        run: outside\n"
      "        read: [{0}]\n",
      mcp_dir, hidden);
}

// What the stand-in wrote (seen): it reached the server through the relay, the server had its
// secret (its SHA-256 in the answer) in its own sandbox (the hidden note unread), and the agent's
// MCP config and environment held neither the value nor the name.
inline void expect_the_stand_in_called_the_probe(const std::string& seen) {
  EXPECT_EQ(seen.find("ERROR"), std::string::npos) << seen;
  EXPECT_NE(seen.find("SERVER awaywork-probe\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("ANSWER True\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("SECRET_MATCHES True\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("HIDDEN denied\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("CONFIG_NAMES_SECRET no\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("AGENT_ENV_HAS_SECRET no\n"), std::string::npos) << seen;
}

}  // namespace aw::test
