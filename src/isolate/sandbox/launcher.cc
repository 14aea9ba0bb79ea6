// Parent side of the launcher: clone the init into its namespaces, give it its id maps and
// cgroups, release it through the handshake socket, and wait until it has exec'd or failed.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"

namespace aw {
namespace sandbox {

Result<std::vector<std::string>> exec_candidates(const ExecRequest& req) {
  if (req.argv.empty() || req.argv[0].empty()) return fail("empty argv");
  const std::string& name = req.argv[0];
  if (name.find('/') != std::string::npos) return std::vector<std::string>{name};
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& kv : req.env)
    if (kv.rfind("PATH=", 0) == 0) path = kv.substr(5);
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    // Relative PATH entries would resolve against the clone the agent controls: skip them.
    if (!dir.empty() && dir[0] == '/') out.push_back(dir + "/" + name);
    start = end + 1;
  }
  if (out.empty()) return fail("{}: no absolute folder in PATH", name);
  return out;
}

std::string step_error(const char* step, const std::string& what, int err) {
  return std::string(step) + ": " + what + ": " + errno_text(err);
}

namespace {

bool wants_netns(const SandboxPlan& plan) {
  return plan.network != Network::host && plan.enabled("netns");
}

unsigned long clone_flags(const SandboxPlan& plan, bool joined_unit_netns) {
  unsigned long f = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;
  if (plan.enabled("pidns")) f |= CLONE_NEWPID;
  if (wants_netns(plan) && !joined_unit_netns) f |= CLONE_NEWNET;
  return f;
}

// Read the child's report until every copy of the socket is closed (exec or exit).
std::string read_report(int fd) {
  std::string text;
  char buf[1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (text.size() < 8192) text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

Status parent_steps(const SandboxPlan& plan, const ExecRequest& req, const Prepared& p, pid_t child,
                    int sock) {
  // Handshake 1: the child is ready (dumpable, so its /proc files are ours to write).
  char ready = 0;
  if (::read(sock, &ready, 1) != 1 || ready != 'R')
    return fail("the child died before the handshake");
  AW_CHECK(with_context(write_id_maps(child, p.uid, p.gid), "user namespace id maps"));
  if (!req.cgroup_procs.empty()) {
    auto st = write_existing(req.cgroup_procs, std::to_string(child));
    if (!st) return fail("join the phase's cgroup: {}", st.error().message);
  }
  if (plan.apply_limits && plan.enabled("limits"))
    AW_CHECK(with_context(apply_cgroup_limits(plan, req, child), "cgroup limits"));
  if (::write(sock, "G", 1) != 1) return fail("release the child: {}", errno_text(errno));
  return {};
}

// Each bridge needs its socket and a port of its own (one listener per port inside).
Status check_bridges(const SandboxPlan& plan) {
  auto bridges = active_bridges(plan);
  for (size_t i = 0; i < bridges.size(); ++i) {
    if (bridges[i].socket.empty() || bridges[i].port == 0)
      return fail("sandbox: a bridge needs a socket path and a port (port {}, socket '{}')",
                  bridges[i].port, bridges[i].socket);
    for (size_t j = 0; j < i; ++j)
      if (bridges[j].port == bridges[i].port)
        return fail("sandbox: two bridges on port {} ({} and {})", bridges[i].port,
                    bridges[j].socket, bridges[i].socket);
  }
  return {};
}

Result<pid_t> launch(const SandboxPlan& plan, const std::vector<sock_filter>& filter,
                     const ExecRequest& req) {
  Prepared p;
  p.plan = &plan;
  p.req = &req;
  p.seccomp = filter;
  p.uid = ::geteuid();
  p.gid = ::getegid();
  p.landlock_abi = plan.enabled("landlock") ? landlock_abi() : 0;
  if (plan.network == Network::allowlist) {
    if (plan.proxy_socket.empty())
      return fail("sandbox: network allowlist needs the egress proxy's socket");
    std::string url = fmt::format("http://127.0.0.1:{}", plan.proxy_port);
    for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"})
      p.proxy_env.push_back(std::string(name) + "=" + url);
    // Loopback inside holds only the bridges (the inference proxy's among them): a client that
    // sent those requests through the egress proxy would be refused there (an IP literal).
    for (const char* name : {"NO_PROXY", "no_proxy"})
      p.proxy_env.push_back(std::string(name) + "=127.0.0.1,localhost");
  }
  AW_CHECK(check_bridges(plan));
  AW_TRY(p.exec_paths, exec_candidates(req));
  p.argv = CStrings(req.argv);
  // The proxy variables are the launcher's: a value the caller set for the same name (the
  // isolator's extra_env, an agent's env list) gives way to them.
  auto ours = [&](const std::string& kv) {
    for (const auto& e : p.proxy_env)
      if (kv.compare(0, e.find('=') + 1, e, 0, e.find('=') + 1) == 0) return true;
    return false;
  };
  std::vector<std::string> env;
  for (const auto& e : req.env)
    if (!ours(e)) env.push_back(e);
  env.insert(env.end(), p.proxy_env.begin(), p.proxy_env.end());
  p.envp = CStrings(std::move(env));

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return fail("socketpair: {}", errno_text(errno));
  // A raw clone behaves like fork (child continues here on a copy of the stack) but can enter
  // the pid namespace as its init, which is what the runner must get back as its direct child.
  // With a unit namespace we step into it just for the clone (the child inherits it), then back.
  int own_netns =
      wants_netns(plan) && plan.unit_netns_fd >= 0 ? enter_unit_netns(plan.unit_netns_fd) : -1;
  p.joined_unit_netns = own_netns >= 0;
  long pid = ::syscall(SYS_clone, clone_flags(plan, p.joined_unit_netns) | SIGCHLD, nullptr,
                       nullptr, nullptr, 0);
  if (pid != 0) leave_unit_netns(own_netns);
  if (pid < 0) {
    int e = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    return fail("clone into new namespaces: {} (try: sysctl kernel.unprivileged_userns_clone=1)",
                errno_text(e));
  }
  if (pid == 0) {
    ::close(sv[0]);
    sandbox::child_main(p, sv[1]);
  }
  ::close(sv[1]);
  auto st = parent_steps(plan, req, p, static_cast<pid_t>(pid), sv[0]);
  if (!st) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    ::close(sv[0]);
    ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
    return fail("sandbox: {}", st.error().message);
  }
  std::string report = read_report(sv[0]);
  ::close(sv[0]);
  if (!report.empty()) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
    return fail("sandbox: {}", report);
  }
  return static_cast<pid_t>(pid);
}

}  // namespace
}  // namespace sandbox

Launcher make_sandbox_launcher(const SandboxPlan& plan) {
  auto shared = std::make_shared<const SandboxPlan>(plan);
  auto filter = sandbox::build_seccomp(plan);
  auto filter_error = filter ? std::string() : filter.error().message;
  auto prog = std::make_shared<const std::vector<sock_filter>>(filter ? *filter
                                                                      : std::vector<sock_filter>{});
  return [shared, prog, filter_error](const ExecRequest& req) -> Result<pid_t> {
    if (!filter_error.empty()) return fail("sandbox: seccomp filter: {}", filter_error);
    return sandbox::launch(*shared, *prog, req);
  };
}

}  // namespace aw
