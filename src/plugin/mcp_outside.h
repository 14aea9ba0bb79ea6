// An MCP server run outside the unit (issue 27 item 3, docs/agents.md `run: outside`): the owner's
// program started by awaywork on the owner's side, in an OS sandbox built from its declaration
// alone, the way a plugin call is (call.h): no home (its own data folder is its HOME), its
// program's install and its `read:` paths read-only, the system trees, a private /tmp; no network
// unless it declares hosts, and then only those, through an egress proxy of its own; an
// environment built from nothing (PATH, HOME, TMPDIR, LANG, its `env:` names, its `secrets:` by
// value); memory and process limits.
//
// The agent reaches it through a unix socket of awaywork's (bridged into the unit by its
// isolation, reached from the agent's CLI by `awaywork __mcp-relay`): each connection is one MCP
// session and starts one server process whose stdin and stdout are that connection itself, so
// awaywork copies no byte of the session and the server holds no other way into the unit. The
// agent calls the tools; it never sees the server's environment, files or processes (another
// pid, mount and network namespace), so a prompt injection cannot read the server's secrets.
//
// A process per session, not one shared: an MCP client starts its stdio server once per session,
// a fresh process each time begins from nothing, and at most max_sessions run at once (one more
// connection is closed at once, so a hostile agent cannot fork the owner's machine through it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/sandbox/plan.h"

namespace aw {

// What awaywork's side lends the server: what every sandbox hides, its own folder, how a declared
// secret's value is found, and its limits.
struct McpOutsideHost {
  SandboxPaths base;  // the owner's home, awaywork's config and state (hidden), root_owner
  std::string dir;    // the server's folder (made): data/ (its HOME), egress.log, stderr.log
  // The value of a secret the server declares, by its name (the secret store). Unset: a server
  // that declares a secret is refused.
  std::function<Result<std::string>(const std::string& name)> secret;
  char** environ_from = nullptr;  // where declared env: names are read; nullptr = environ
  // Memory and processes per session; enabled false where the owner can set no cgroup limits
  // (sandbox.limits: off), as for the unit's own phases.
  Limits limits{1ull << 30, 128, 1.0, true};
  int max_sessions = 4;
  // Tests only: names the egress proxy resolves to these addresses, loopback allowed (never from
  // configuration).
  std::map<std::string, std::string> test_static_hosts;
};

// From the owner's config: its sandbox's hidden paths and whether cgroup limits can be set; dir is
// the server's folder (the unit's run folder's mcp/NAME). No secret store: the caller adds one.
McpOutsideHost mcp_outside_host(const Config& cfg, const std::string& dir);

class McpOutsideServer {
 public:
  // Checks the sandbox can be built and every declared secret is there, starts the egress proxy
  // (declared hosts only), and listens at socket_path (mode 0600: reached through the isolation's
  // bridge, or by the owner's own unsandboxed phase). Nothing of the server runs until a session
  // connects. An Error names the server and what is missing.
  static Result<std::unique_ptr<McpOutsideServer>> start(const McpServerConfig& server,
                                                         const McpOutsideHost& host,
                                                         const std::string& socket_path);
  // Stops listening, ends every running session (SIGTERM, then SIGKILL) and waits for them.
  ~McpOutsideServer();

  const std::string& socket_path() const;
  // The declared secrets' values, for the unit's redaction (a tool's answer may echo one).
  std::vector<std::string> secret_values() const;
  // For the record: the sessions it served, and how each server process ended when not well.
  std::vector<std::string> notes() const;

  struct State;

 private:
  explicit McpOutsideServer(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace aw
