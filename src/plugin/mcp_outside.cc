// An MCP server outside the unit, one sandboxed process per session (mcp_outside.h).
#include "plugin/mcp_outside.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/inert.h"
#include "base/random.h"
#include "base/unique_fd.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/unit_view.h"
#include "plugin/sandbox_env.h"
#include "proc/capture.h"
#include "proc/runner.h"
#include "proxy/egress_proxy.h"

extern char** environ;

namespace aw {

namespace {

// What of a session's stderr is kept, per session, in stderr.log (the server's own words, made
// inert; a flood is cut, never buffered).
constexpr size_t kStderrCap = 64 << 10;

std::string errno_says(int e) {
  return std::strerror(e);
}

// The server's program as awaywork starts it: a bare name is looked up in the owner's PATH (where
// `awaywork doctor` finds it), so that its install (an npm prefix, ~/.local) is what is lent.
Result<std::string> resolve_program(const McpServerConfig& s, const McpOutsideHost& host) {
  const std::string& prog = s.command[0];
  if (prog.find('/') != std::string::npos) return prog;
  std::string path = kSandboxPath;
  char** from = host.environ_from ? host.environ_from : environ;
  for (char** e = from; e && *e; ++e)
    if (std::string_view(*e).starts_with("PATH=")) path = *e + 5;
  auto found = find_program(prog, path);
  if (!found)
    return fail(
        "MCP server {}: its program {} is not on your PATH; install it or write its "
        "absolute path in mcp.{}.command",
        s.name, prog, s.name);
  return *found;
}

Result<UniqueFd> listen_unix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return fail("the socket path {} is longer than {} bytes", path, sizeof addr.sun_path - 1);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.fd < 0) return fail("socket: {}", errno_says(errno));
  ::unlink(path.c_str());  // a stale socket of an earlier unit's run folder: never a file of ours
  // 0600 from its first moment: the umask, not a chmod after bind, so nobody else connects first.
  mode_t old = ::umask(0177);
  int rc = ::bind(fd.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int e = errno;
  ::umask(old);
  if (rc != 0) return fail("bind {}: {}", path, errno_says(e));
  if (::listen(fd.fd, 8) != 0) return fail("listen {}: {}", path, errno_says(errno));
  return fd;
}

}  // namespace

struct McpOutsideServer::State {
  McpServerConfig server;
  McpOutsideHost host;
  std::string socket_path;
  std::string id;  // random: names its sessions' cgroups (a config key is no path component)
  SandboxPlan plan;
  std::vector<std::string> env;
  std::vector<std::string> secret_values;
  std::unique_ptr<LoggedEgress> egress;
  UniqueFd listener;
  UniqueFd wake_r, wake_w;  // a byte here ends the accept loop
  std::atomic<bool> stopping{false};
  std::thread acceptor;

  mutable std::mutex mu;
  // By number; a finished one is joined at the next accept (an agent that connects over and over
  // leaves no thread behind) and the rest at the end (each ends at the latest when stopping).
  std::map<int, std::thread> sessions;
  std::vector<int> finished;
  int running = 0;
  int served = 0, refused = 0;
  std::vector<std::string> ended_badly;
  std::FILE* stderr_log = nullptr;

  ~State() {
    stopping = true;
    if (wake_w.fd >= 0) (void)!::write(wake_w.fd, "x", 1);
    if (acceptor.joinable()) acceptor.join();
    for (auto& [_, t] : sessions) t.join();
    egress.reset();  // after the sessions: a server may use the network to its last byte
    if (stderr_log) std::fclose(stderr_log);
    if (!socket_path.empty()) ::unlink(socket_path.c_str());
  }

  void accept_loop();
  void session(int conn, int number);
};

void McpOutsideServer::State::accept_loop() {
  pollfd fds[2] = {{listener.fd, POLLIN, 0}, {wake_r.fd, POLLIN, 0}};
  while (!stopping) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int conn = ::accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    std::lock_guard lock(mu);
    for (int done : finished) {
      sessions[done].join();  // it only returns now: it holds nothing of mu
      sessions.erase(done);
    }
    finished.clear();
    if (running >= host.max_sessions) {
      // Closed at once: the client sees its server end, and nothing more of the owner's runs.
      ++refused;
      ::close(conn);
      continue;
    }
    ++running;
    int number = ++served;
    sessions.emplace(number, std::thread([this, conn, number] { session(conn, number); }));
  }
}

// One session: the server in its sandbox with the connection as its stdin and stdout. The runner
// hands the launcher its own pipes; the launcher given here swaps the connection in for stdin and
// stdout (the runner's stdout pipe then carries nothing and ends with the process), and stderr
// stays the runner's, read into stderr.log.
void McpOutsideServer::State::session(int conn, int number) {
  SandboxPlan p = plan;
  p.cgroup_name = fmt::format("mcp-{}-{}", id, number);
  Launcher sandboxed = make_sandbox_launcher(p);
  PhaseSpec spec;
  spec.name = "mcp " + server.name;
  spec.argv = server.command;
  spec.env = env;
  spec.cwd = host.dir + "/data";
  spec.timeout = std::chrono::hours(24);  // the unit's own end stops it first (the destructor)
  spec.grace = std::chrono::milliseconds(500);
  spec.inherit_fds = {conn};
  spec.launcher = [sandboxed, conn](const ExecRequest& req) {
    ExecRequest r = req;
    r.stdin_fd = conn;
    r.stdout_fd = conn;
    return sandboxed(r);
  };
  std::string err;
  spec.on_output = [&](Stream s, std::string_view bytes) {
    if (s == Stream::err && err.size() < kStderrCap)
      err.append(bytes.substr(0, kStderrCap - err.size()));
  };
  spec.cancelled = [this] { return stopping.load(); };
  auto ran = run_phase(spec);
  ::close(conn);
  SandboxOomCount(p.cgroup_name).sweep_after_phase();
  std::lock_guard lock(mu);
  --running;
  finished.push_back(number);
  if (stderr_log && !err.empty()) {
    std::fprintf(stderr_log, "session %d:\n%s\n", number, inert(err).c_str());
    std::fflush(stderr_log);
  }
  if (!ran)
    ended_badly.push_back(fmt::format("session {}: {}", number, ran.error().message));
  else if (ran->end != PhaseEnd::exited && !(ran->end == PhaseEnd::cancelled && stopping))
    ended_badly.push_back(fmt::format(
        "session {}: {}{}", number, describe(*ran),
        ran->end == PhaseEnd::failed_to_start ? ": " + ran->start_error : std::string()));
}

McpOutsideHost mcp_outside_host(const Config& cfg, const std::string& dir) {
  McpOutsideHost host;
  host.base = sandbox_base_paths(cfg);
  host.dir = dir;
  host.limits.enabled = cfg.sandbox.limits.enabled;
  return host;
}

McpOutsideServer::McpOutsideServer(std::unique_ptr<State> s) : s_(std::move(s)) {}
McpOutsideServer::~McpOutsideServer() = default;

Result<std::unique_ptr<McpOutsideServer>> McpOutsideServer::start(const McpServerConfig& server,
                                                                  const McpOutsideHost& host,
                                                                  const std::string& socket_path) {
  if (server.command.empty()) return fail("MCP server {} has no command", server.name);
  auto st = std::make_unique<State>();
  st->server = server;
  AW_TRY(st->server.command[0], resolve_program(server, host));
  AW_TRY(st->id, random_hex(6));
  st->host = host;
  std::string data = host.dir + "/data";
  AW_CHECK(
      with_context(make_dirs(data, 0700), fmt::format("MCP server {}: its folder", server.name)));
  // Its secrets by value, kept for the unit's redaction (a tool's answer may echo one).
  SandboxEnvSpec env_spec{"MCP server",   server.name, "AWAYWORK_MCP_SERVER", server.env,
                          server.secrets, host.secret, host.environ_from,     data};
  AW_TRY(st->env, sandbox_env(env_spec, &st->secret_values));

  SandboxConfig sc;
  sc.mode = SandboxMode::required;  // no unsandboxed fallback: its secrets are why it is outside
  sc.network = server.net.empty() ? Network::none : Network::allowlist;
  sc.allow = server.net;
  sc.readable = server.read;
  sc.limits = host.limits;
  SandboxPaths sp = host.base;
  sp.clone.clear();
  sp.home = data;  // its only writable folder besides the private /tmp
  sp.provider_state.clear();
  sp.programs = {st->server.command[0]};  // its install (an npm prefix, a venv) lent read-only
  sp.path_value = kSandboxPath;
  AW_TRY(st->plan,
         with_context(make_plan(sc, sp), fmt::format("MCP server {}: its sandbox", server.name)));
  lend_program(st->server.command[0], kSandboxPath, st->plan);
  if (st->plan.network == Network::allowlist) {
    EgressProxyOptions o;
    o.socket_path = host.dir + "/egress.sock";
    o.allow = server.net;
    if (!host.test_static_hosts.empty()) {
      o.static_hosts = host.test_static_hosts;
      o.allow_private_upstream = true;
    }
    AW_TRY(st->egress, with_context(start_logged_egress(std::move(o), host.dir + "/egress.log"),
                                    fmt::format("MCP server {}: its egress proxy", server.name)));
    st->plan.proxy_socket = st->egress->proxy->socket_path();
    std::string url = fmt::format("http://127.0.0.1:{}", st->plan.proxy_port);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
      st->env.push_back(std::string(name) + "=" + url);
  }
  AW_CHECK(with_context(sandbox_available(st->plan),
                        fmt::format("MCP server {} cannot run outside: its sandbox cannot be "
                                    "built (a server run outside is always sandboxed)",
                                    server.name)));
  st->stderr_log = std::fopen((host.dir + "/stderr.log").c_str(), "ae");

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return fail("pipe: {}", errno_says(errno));
  st->wake_r = UniqueFd(pipe_fds[0]);
  st->wake_w = UniqueFd(pipe_fds[1]);
  AW_TRY(st->listener, with_context(listen_unix(socket_path),
                                    fmt::format("MCP server {}: its socket", server.name)));
  st->socket_path = socket_path;
  State* raw = st.get();
  st->acceptor = std::thread([raw] { raw->accept_loop(); });
  return std::unique_ptr<McpOutsideServer>(new McpOutsideServer(std::move(st)));
}

const std::string& McpOutsideServer::socket_path() const {
  return s_->socket_path;
}

std::vector<std::string> McpOutsideServer::secret_values() const {
  return s_->secret_values;
}

std::vector<std::string> McpOutsideServer::notes() const {
  std::lock_guard lock(s_->mu);
  std::vector<std::string> out = {fmt::format(
      "MCP server {} ran outside the unit, sandboxed: {} session(s){}; its secrets stayed outside",
      s_->server.name, s_->served,
      s_->refused ? fmt::format(", {} refused past {} at once", s_->refused, s_->host.max_sessions)
                  : std::string())};
  for (const auto& e : s_->ended_badly)
    out.push_back(fmt::format("MCP server {}: {}", s_->server.name, e));
  return out;
}

}  // namespace aw
