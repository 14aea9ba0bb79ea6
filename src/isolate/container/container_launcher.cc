#include "isolate/container/container_launcher.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/argv.h"
#include "base/fs.h"

namespace aw {

namespace {

bool valid_name(const std::string& n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  return std::all_of(n.begin(), n.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// The engines' own rule: [a-zA-Z0-9][a-zA-Z0-9_.-]*.
bool valid_container_name(const std::string& n) {
  if (n.empty() || !std::isalnum(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

// A secret's value sits in the client's environment, so its name must not be one the client (or
// the Go runtime, the dynamic loader, a proxy library) reads for itself.
bool steers_client(const std::string& name) {
  std::string up = name;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char* exact : {"PATH", "HOME", "TMPDIR", "SHELL", "USER", "LOGNAME", "HTTP_PROXY",
                            "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
                            "GODEBUG", "GOTRACEBACK", "GOMAXPROCS", "GOGC"})
    if (up == exact) return true;
  for (const char* prefix : {"DOCKER_", "CONTAINER", "PODMAN_", "BUILDAH_", "XDG_", "LD_",
                             "NOTARY_", "STORAGE_", "REGISTRIES_", "OTEL_"})
    if (up.rfind(prefix, 0) == 0) return true;
  return false;
}

// --mount is a CSV field list: a comma, quote or newline in a path would add fields.
bool mountable(const std::string& p) {
  return !p.empty() && p[0] == '/' && p.find_first_of(",\"\n\r") == std::string::npos &&
         p.find("/../") == std::string::npos && (p.size() < 3 || p.substr(p.size() - 3) != "/..");
}

bool inside(const std::string& path, const std::string& dir) {
  return path == dir ||
         (path.rfind(dir, 0) == 0 && path.size() > dir.size() && path[dir.size()] == '/');
}

std::string value_of(const std::vector<std::string>& env, const std::string& name, bool* found) {
  for (const auto& kv : env)
    if (kv.size() > name.size() && kv[name.size()] == '=' && kv.rfind(name, 0) == 0) {
      *found = true;
      return kv.substr(name.size() + 1);
    }
  *found = false;
  return {};
}

Status check_plan(const ContainerPlan& p) {
  if (p.image.empty() || p.image[0] == '-' || p.image.find_first_of(" \t\r\n") != std::string::npos)
    return fail("image name '{}'", p.image);
  if (p.engine.client.empty()) return fail("no engine client");
  if (!mountable(p.clone)) return fail("clone path {} cannot be mounted", p.clone);
  if (!p.seccomp_profile.empty() && p.seccomp_profile[0] != '/')
    return fail("seccomp profile {} is not an absolute path", p.seccomp_profile);
  if (!p.plugin_dir.empty() && !mountable(p.plugin_dir))
    return fail("plugin folder {} cannot be mounted", p.plugin_dir);
  for (const auto& n : p.secret_names) {
    if (!valid_name(n)) return fail("secret name '{}' is not a variable name", n);
    if (steers_client(n))
      return fail("secret name {} would steer the {} client itself; rename it", n,
                  to_string(p.engine.kind));
  }
  for (const auto& [k, v] : p.placeholders)
    if (!valid_name(k)) return fail("placeholder name '{}' is not a variable name", k);
  if (p.network == Network::allowlist && !valid_container_name(p.proxy_network))
    return fail("network allowlist needs the unit's egress bridge container, and none is given");
  if (!p.proxy_network.empty() && !valid_container_name(p.proxy_network))
    return fail("bridge container name '{}'", p.proxy_network);
  if (p.network == Network::host && !p.proxy_network.empty())
    return fail("network host shares the host's loopback; it joins no bridge container");
  for (const auto& [src, dst] : p.readonly_files)
    if (!mountable(src) || !mountable(dst)) return fail("lent file {} cannot be mounted", src);
  return {};
}

// Between fork and exec only async-signal-safe calls: report a failure on fd 2 and _exit(127).
[[noreturn]] void die(const char* what) {
  const char* e = ::strerror(errno);
  (void)!::write(2, "awaywork: container launcher: ", 30);
  (void)!::write(2, what, ::strlen(what));
  (void)!::write(2, ": ", 2);
  (void)!::write(2, e, ::strlen(e));
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

[[noreturn]] void child(const ExecRequest& req, const char* client, char* const* argv,
                        char* const* envp) {
  ::setpgid(0, 0);
  int fds[3] = {req.stdin_fd, req.stdout_fd, req.stderr_fd};
  for (int i = 0; i < 3; ++i)
    if (fds[i] >= 0 && fds[i] != i && ::dup2(fds[i], i) < 0) die("dup2");
  if (!req.cgroup_procs.empty()) {
    int fd = ::open(req.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) die("open cgroup.procs");
    if (::write(fd, "0", 1) != 1) die("join cgroup");
    ::close(fd);
  }
  // The client reads nothing from its working folder; never the clone.
  if (::chdir("/") != 0) die("chdir /");
  ::execve(client, argv, envp);
  die("exec engine client");
}

}  // namespace

std::vector<std::string> fitting_ulimits() {
  auto fit = [](int resource, rlim_t want) {
    rlimit r{};
    if (::getrlimit(resource, &r) != 0) return want;
    return r.rlim_max == RLIM_INFINITY ? want : std::min<rlim_t>(want, r.rlim_max);
  };
  rlim_t nofile = fit(RLIMIT_NOFILE, 1048576), nproc = fit(RLIMIT_NPROC, 32768);
  return {fmt::format("nofile={}:{}", nofile, nofile), fmt::format("nproc={}:{}", nproc, nproc)};
}

std::vector<std::string> hardening_args(const Engine& e) {
  std::vector<std::string> a = {"--pull",     "never", "--log-driver",   "none",
                                "--cap-drop", "ALL",   "--security-opt", "no-new-privileges"};
  if (e.kind == EngineKind::podman)
    for (const auto& u : fitting_ulimits()) a.insert(a.end(), {"--ulimit", u});
  return a;
}

Result<std::vector<std::string>> container_run_argv(const ContainerPlan& p, const std::string& name,
                                                    const ExecRequest& req) {
  AW_CHECK(check_plan(p));
  if (req.argv.empty()) return fail("empty command");
  if (!valid_container_name(name)) return fail("bad container name '{}'", name);
  std::string home = p.home.empty() ? p.clone + "/.away/home" : p.home;
  std::string workdir = inside(req.cwd, p.clone) ? req.cwd : p.clone;
  std::vector<std::string> a = {p.engine.client, "run", "--rm", "-i", "--name=" + name};
  auto hard = hardening_args(p.engine);
  a.insert(a.end(), hard.begin(), hard.end());
  if (!p.seccomp_profile.empty()) a.push_back("--security-opt=seccomp=" + p.seccomp_profile);
  a.insert(a.end(), {"--user", fmt::format("{}:{}", p.uid, p.gid), "--ipc", "private",
                     "--pids-limit", std::to_string(p.pids)});
  // Joining the bridge's network namespace takes its hostname too (the engine refuses both).
  if (p.proxy_network.empty()) a.insert(a.end(), {"--hostname", "awaywork"});
  if (p.memory_bytes > 0) {
    a.insert(a.end(), {"--memory", std::to_string(p.memory_bytes), "--memory-swap",
                       std::to_string(p.memory_bytes)});
  }
  if (p.cpus > 0) a.insert(a.end(), {"--cpus", fmt::format("{:.2f}", p.cpus)});
  // The bridge's namespace has nothing but its loopback and the ports it relays (none: the
  // inference proxy only; allowlist: the egress proxy too).
  if (!p.proxy_network.empty())
    a.push_back("--network=container:" + p.proxy_network);
  else if (p.network == Network::host)
    a.insert(a.end(), {"--network", "host"});
  else
    a.insert(a.end(), {"--network", "none"});
  // Every value that comes from outside is joined to its flag with '=': a value starting with '-'
  // cannot become a flag of its own.
  if (!p.unit.empty()) a.push_back("--label=awaywork.unit=" + p.unit);
  a.push_back(fmt::format("--mount=type=bind,source={0},target={0}", p.clone));
  if (!p.plugin_dir.empty())
    a.push_back(fmt::format("--mount=type=bind,source={0},target={0},readonly", p.plugin_dir));
  for (const auto& [src, dst] : p.readonly_files)
    a.push_back(fmt::format("--mount=type=bind,source={},target={},readonly", src, dst));
  a.insert(a.end(), {"--workdir=" + workdir, "--env=HOME=" + home});
  for (const auto& [k, v] : p.placeholders)
    if (k != "HOME") a.push_back("--env=" + k + "=" + v);
  for (const auto& n : p.secret_names) {
    bool found = false;
    value_of(req.env, n, &found);
    if (found) a.push_back("--env=" + n);  // by name: the value is in the client's env
  }
  a.insert(a.end(), p.weaken_for_test.begin(), p.weaken_for_test.end());
  // Whatever the image names as entrypoint would run before our argv: the phase runs argv only.
  a.insert(a.end(), {"--entrypoint=" + req.argv[0], p.image});
  a.insert(a.end(), req.argv.begin() + 1, req.argv.end());
  return a;
}

std::vector<std::string> container_client_env(const ContainerPlan& p, const ExecRequest& req) {
  std::vector<std::string> env = p.engine.client_env;
  for (const auto& n : p.secret_names) {
    bool found = false;
    std::string v = value_of(req.env, n, &found);
    if (found) env.push_back(n + "=" + v);
  }
  return env;
}

Result<Launcher> make_container_launcher(const ContainerPlan& plan, std::string name) {
  AW_CHECK(check_plan(plan));
  return Launcher([plan, name = std::move(name)](const ExecRequest& req) -> Result<pid_t> {
    AW_TRY(auto argv, container_run_argv(plan, name, req));
    auto env = container_client_env(plan, req);
    CStrings cargv(std::move(argv)), cenv(std::move(env));
    pid_t pid = ::fork();
    if (pid < 0) return fail("fork: {}", errno_text(errno));
    if (pid == 0) child(req, plan.engine.client.c_str(), cargv.get(), cenv.get());
    return pid;
  });
}

Result<std::string> prepare_home(const std::string& clone) {
  std::string away = clone + "/.away", home = away + "/home";
  struct stat st {};
  if (::lstat(away.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return fail("{} exists and is not a folder", away);
  } else if (::mkdir(away.c_str(), 0700) != 0) {
    return fail("mkdir {}: {}", away, errno_text(errno));
  }
  // Fresh: whatever the repository (or an earlier unit) left there is not the agent's HOME.
  if (::lstat(home.c_str(), &st) == 0) AW_CHECK(remove_tree(home));
  if (::mkdir(home.c_str(), 0700) != 0) return fail("mkdir {}: {}", home, errno_text(errno));
  return home;
}

}  // namespace aw
