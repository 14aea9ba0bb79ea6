// An MCP server run outside the unit (issue 27 item 3) with real processes: tests/unit/mcp/
// probe_server.py, a stdio MCP server, started by McpOutsideServer in its own sandbox and spoken to
// over its socket as the relay would, then through the real relays (`awaywork __mcp-relay`,
// `aw_mcp_relay_static`). Its secret is in its environment and nowhere else; it cannot read the
// owner's home (beside a positive control that reads a declared path); nothing of the owner's
// environment reaches it; sessions past the limit are closed; a missing secret refuses the server
// before anything runs.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "../isolate/harness.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "plugin/mcp_outside.h"

namespace aw {
namespace {

// Shaped like a GitHub token (an MCP server's typical secret); valid nowhere.
const std::string kToken = "ghp_FAKEoutsideFAKEoutsideFAKEoutside0123";

int connect_unix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0)
    return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

// Everything fd sends until it closes or `seconds` pass.
std::string read_until_eof(int fd, int seconds) {
  std::string out;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// One MCP session over a connected socket: newline-delimited JSON-RPC 2.0.
struct Session {
  int fd = -1;
  std::string pending;
  explicit Session(int f) : fd(f) {}
  ~Session() {
    if (fd >= 0) ::close(fd);
  }
  void send(const nlohmann::json& msg) {
    std::string line = msg.dump() + "\n";
    ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  }
  // The reply with this id (skipping anything else), or null after 20 s.
  nlohmann::json reply(int id) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    char buf[4096];
    while (std::chrono::steady_clock::now() < end) {
      size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        auto msg = nlohmann::json::parse(pending.substr(0, nl), nullptr, false);
        pending.erase(0, nl + 1);
        if (msg.is_object() && msg.value("id", -1) == id) return msg;
      }
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 200) <= 0) continue;
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      pending.append(buf, static_cast<size_t>(n));
    }
    return nullptr;
  }
  // initialize, then the probe tool's text ("probe-answer ...") or what went wrong.
  std::string probe() {
    send({{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", "2025-06-18"}, {"capabilities", nlohmann::json::object()}}}});
    auto init = reply(1);
    if (!init.is_object() || !init.contains("result")) return "no initialize reply: " + init.dump();
    send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}});
    auto list = reply(2);
    if (list.dump().find("\"probe\"") == std::string::npos) return "no probe tool: " + list.dump();
    send({{"jsonrpc", "2.0"},
          {"id", 3},
          {"method", "tools/call"},
          {"params", {{"name", "probe"}, {"arguments", nlohmann::json::object()}}}});
    auto call = reply(3);
    try {
      return call.at("result").at("content").at(0).at("text").get<std::string>();
    } catch (const std::exception&) {
      return "no tools/call result: " + call.dump();
    }
  }
};

struct McpOutsideTest : ::testing::Test {
  test::TempDir dir;
  std::string owner = dir.path + "/owner", srv = dir.path + "/server", state = dir.path + "/state",
              config = dir.path + "/config", shared = dir.path + "/shared";
  McpOutsideHost host;
  McpServerConfig server;

  void SetUp() override {
    // The server's memory and process limits are cgroup limits, which need root here.
    if (::geteuid() != 0) AW_SKIP_OR_FAIL("needs root for the MCP server's cgroup limits");
    for (const auto& d : {owner + "/.ssh", srv, state + "/runs/u/mcp/0", config, shared})
      ASSERT_TRUE(make_dirs(d));
    ASSERT_TRUE(write_file(owner + "/.ssh/id_canary", "PRIVATE-KEY-CANARY"));
    ASSERT_TRUE(write_file(shared + "/ok.txt", "READ-OK"));
    std::filesystem::copy_file(std::string(AW_SOURCE_DIR) + "/tests/unit/mcp/probe_server.py",
                               srv + "/probe_server.py");
    host.base.owner_home = owner;
    host.base.config_dir = config;
    host.base.state_dir = state;
    host.base.root_owner = true;
    host.dir = state + "/runs/u/mcp/0";
    host.limits = Limits{256ull << 20, 32, 1.0, true};
    host.secret = [](const std::string& name) -> Result<std::string> {
      if (name == "MCP_PROBE_TOKEN") return kToken;
      return fail("no secret {}", name);
    };
    server.name = "probe";
    server.outside = true;
    server.command = {"/usr/bin/python3", srv + "/probe_server.py", "--hidden",
                      owner + "/.ssh/id_canary"};
    server.read = {srv};
    server.secrets = {"MCP_PROBE_TOKEN"};
  }

  std::string socket() const { return state + "/runs/u/mcp-0.sock"; }
  // Starts the server, then relay (argv) with an initialize and a tools/call on its stdin; checks
  // the answers came back through it and the secret itself did not.
  void carry_a_session(const std::vector<std::string>& relay);
};

TEST_F(McpOutsideTest, ToolsCallRoundTripsAndTheSecretIsTheServersAloneNotTheOwnersHome) {
  ::setenv("AW_MCP_OWNER_CANARY", "owner-env-canary", 1);
  ::setenv("AW_MCP_DECLARED", "declared-ok", 1);
  server.env = {"AW_MCP_DECLARED"};
  auto started = McpOutsideServer::start(server, host, socket());
  ::unsetenv("AW_MCP_OWNER_CANARY");
  ::unsetenv("AW_MCP_DECLARED");
  ASSERT_TRUE(started) << started.error().message;
  // Only the owner may connect: the unit reaches it through its isolation's bridge.
  struct stat st {};
  ASSERT_EQ(::stat(socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  int fd = connect_unix(socket());
  ASSERT_GE(fd, 0);
  std::string answer = Session(fd).probe();
  ASSERT_EQ(answer.rfind("probe-answer ", 0), 0u) << answer;
  // The secret reached the server, by value, in its environment.
  EXPECT_NE(answer.find("secret_sha256=" + sha256_hex(kToken)), std::string::npos) << answer;
  // The owner's home is not in its view.
  EXPECT_NE(answer.find("hidden=denied"), std::string::npos) << answer;
  // Its own network namespace, not the host's.
  char host_ns[128] = {};
  ASSERT_GT(::readlink("/proc/self/ns/net", host_ns, sizeof host_ns - 1), 0);
  EXPECT_EQ(answer.find(std::string("netns=") + host_ns + " "), std::string::npos) << answer;
  // An environment from nothing: its declared names, never the owner's others.
  std::string env = answer.substr(answer.find(" env=") + 5);
  EXPECT_NE(env.find("AW_MCP_DECLARED"), std::string::npos) << env;
  EXPECT_NE(env.find("MCP_PROBE_TOKEN"), std::string::npos) << env;
  EXPECT_EQ(env.find("AW_MCP_OWNER_CANARY"), std::string::npos) << env;
  // Redaction gets the value, the record the sessions.
  EXPECT_EQ((*started)->secret_values(), (std::vector<std::string>{kToken}));
  started->reset();  // stops and waits for the session
  struct stat gone {};
  EXPECT_NE(::stat(socket().c_str(), &gone), 0) << "the socket outlived its server";
}

// The positive control of the home probe: a path the server declares in read: is read.
TEST_F(McpOutsideTest, APathItDeclaresIsReadable) {
  server.command = {"/usr/bin/python3", srv + "/probe_server.py", "--hidden", shared + "/ok.txt"};
  server.read = {srv, shared};
  auto started = McpOutsideServer::start(server, host, socket());
  ASSERT_TRUE(started) << started.error().message;
  int fd = connect_unix(socket());
  ASSERT_GE(fd, 0);
  std::string answer = Session(fd).probe();
  EXPECT_NE(answer.find("hidden=read 7 bytes"), std::string::npos) << answer;
}

TEST_F(McpOutsideTest, SessionsPastTheLimitAreClosedAtOnce) {
  host.max_sessions = 1;
  auto started = McpOutsideServer::start(server, host, socket());
  ASSERT_TRUE(started) << started.error().message;
  Session first(connect_unix(socket()));
  ASSERT_GE(first.fd, 0);
  ASSERT_EQ(first.probe().rfind("probe-answer ", 0), 0u);
  int second = connect_unix(socket());
  ASSERT_GE(second, 0);
  EXPECT_EQ(read_until_eof(second, 10), "");  // closed, no server behind it
  ::close(second);
  bool said = false;
  for (const auto& n : (*started)->notes()) said = said || n.find("1 refused") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(McpOutsideTest, AMissingSecretRefusesTheServerBeforeAnythingRuns) {
  server.secrets = {"NOT_STORED"};
  auto started = McpOutsideServer::start(server, host, socket());
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find("MCP server probe declares the secret NOT_STORED"),
            std::string::npos)
      << started.error().message;
  struct stat st {};
  EXPECT_NE(::stat(socket().c_str(), &st), 0) << "it listened although it cannot run";
}

// The real relays the agent's CLI starts: `awaywork __mcp-relay SOCKET` (isolation none and user)
// and `aw_mcp_relay_static SOCKET` (lent into a container) each copy a whole session from their
// stdin to the server and the server's answers to their stdout, and end when stdin does.
TEST_F(McpOutsideTest, TheRelayCarriesASessionFromItsStdioToTheServer) {
  std::string relay = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
  if (::access(relay.c_str(), X_OK) != 0) AW_SKIP_OR_FAIL("no awaywork binary at " << relay);
  carry_a_session({relay, "__mcp-relay", socket()});
}

TEST_F(McpOutsideTest, TheStaticRelayCarriesASessionFromItsStdioToTheServer) {
  std::string relay = std::string(AW_BINARY_DIR) + "/src/cli/aw_mcp_relay_static";
  if (::access(relay.c_str(), X_OK) != 0) AW_SKIP_OR_FAIL("no static relay at " << relay);
  carry_a_session({relay, socket()});
}

void McpOutsideTest::carry_a_session(const std::vector<std::string>& relay) {
  auto started = McpOutsideServer::start(server, host, socket());
  ASSERT_TRUE(started) << started.error().message;
  std::string input =
      nlohmann::json{{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "initialize"},
                     {"params", {{"protocolVersion", "2025-06-18"}}}}
          .dump() +
      "\n" +
      nlohmann::json{{"jsonrpc", "2.0"},
                     {"id", 3},
                     {"method", "tools/call"},
                     {"params", {{"name", "probe"}, {"arguments", nlohmann::json::object()}}}}
          .dump() +
      "\n";
  int in[2], out[2];
  ASSERT_EQ(::pipe(in), 0);
  ASSERT_EQ(::pipe(out), 0);
  // Built before fork: the child only execs.
  std::vector<char*> argv;
  for (const auto& a : relay) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::close(in[1]);
    ::close(out[0]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ASSERT_EQ(::write(in[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  ::close(in[1]);  // the end of the session: the server reads EOF and exits, then the relay
  std::string got = read_until_eof(out[0], 20);
  ::close(out[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_NE(got.find("\"serverInfo\""), std::string::npos) << got;
  EXPECT_NE(got.find("secret_sha256=" + sha256_hex(kToken)), std::string::npos) << got;
  EXPECT_EQ(got.find(kToken), std::string::npos) << "the value itself crossed the relay";
}

// The relay refuses any address but the loopback bridge or a socket path: it is no way out.
TEST(McpRelay, ReachesOnlyASocketPathOrTheLoopback) {
  std::string relay = std::string(AW_BINARY_DIR) + "/src/cli/awaywork";
  if (::access(relay.c_str(), X_OK) != 0) AW_SKIP_OR_FAIL("no awaywork binary at " << relay);
  for (const char* target : {"10.0.0.1:443", "example.com:80", "127.0.0.1:99999", "rel/sock"}) {
    std::string cmd = relay + " __mcp-relay '" + target + "' </dev/null 2>&1";
    std::FILE* f = ::popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string said;
    test::drain(::fileno(f), said);
    int rc = ::pclose(f);
    EXPECT_EQ(WEXITSTATUS(rc), 1) << target << ": " << said;
    EXPECT_NE(said.find("write an absolute socket path or 127.0.0.1:PORT"), std::string::npos)
        << target << ": " << said;
  }
}

}  // namespace
}  // namespace aw
