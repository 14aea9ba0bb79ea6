#include "isolate/user/worker_launcher.h"
#include "isolate/user/worker_programs.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "base/argv.h"
#include "base/fs.h"
#include "proc/capture.h"

namespace aw {

namespace {

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& kv : env)
    if (kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 && kv[name.size()] == '=')
      return kv.substr(name.size() + 1);
  return "";
}

bool plain_env_name(const std::string& n) {
  if (n.empty() || (n[0] >= '0' && n[0] <= '9')) return false;
  for (char c : n)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

// Async-signal-safe decimal for the child after fork.
size_t format_pid(pid_t pid, char* buf) {
  char tmp[16];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + pid % 10);
    pid /= 10;
  } while (pid > 0);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

[[noreturn]] void child(const ExecRequest& r, char* const* argv, char* const* envp) {
  ::setsid();
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int fds[3] = {r.stdin_fd, r.stdout_fd, r.stderr_fd};
  for (int i = 0; i < 3; ++i) {
    int fd = fds[i] >= 0 ? fds[i] : ::open("/dev/null", O_RDWR);
    if (fd != i) ::dup2(fd, i);
  }
  if (!r.cgroup_procs.empty()) {
    int fd = ::open(r.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    char buf[16];
    size_t n = format_pid(::getpid(), buf);
    if (fd < 0 || ::write(fd, buf, n) != static_cast<ssize_t>(n)) _exit(126);
    ::close(fd);
  }
  if (::chdir("/") != 0) _exit(126);
  ::execve(argv[0], argv, envp);
  _exit(127);
}

}  // namespace

Result<std::vector<std::string>> worker_argv(const WorkerUser& worker, const ExecRequest& req,
                                             const WorkerSandbox* sandbox) {
  if (req.argv.empty()) return fail("empty argv");
  if (!is_plain_user_name(worker.name)) return fail("bad worker name '{}'", worker.name);
  std::string names;
  for (const auto& kv : req.env) {
    std::string n = kv.substr(0, kv.find('='));
    if (!plain_env_name(n)) return fail("environment name '{}' cannot be passed through sudo", n);
    names += (names.empty() ? "" : ",") + n;
  }
  std::string path = env_value(req.env, "PATH");
  // Found as the worker finds it: an entry under the owner's closed home is passed over.
  AW_TRY(std::string prog,
         resolve_for_worker(req.argv[0], path.empty() ? "/usr/bin:/bin" : path, worker));
  if (prog.find('=') != std::string::npos) return fail("program path '{}' contains '='", prog);
  std::vector<std::string> argv = {"/usr/bin/sudo", "-n", "-u", worker.name};
  if (!names.empty()) argv.push_back("--preserve-env=" + names);
  std::string cwd = req.cwd.empty() ? "/" : req.cwd;
  if (sandbox)
    argv.insert(argv.end(), {"--", sandbox->helper, "__sandbox-exec", sandbox->plan_file, "--cwd",
                             cwd, "--env", names, "--", prog});
  else
    argv.insert(argv.end(), {"--", "/usr/bin/env", "-C", cwd, "--", prog});
  argv.insert(argv.end(), req.argv.begin() + 1, req.argv.end());
  return argv;
}

Launcher make_worker_launcher(const WorkerUser& worker) {
  return [worker](const ExecRequest& req) -> Result<pid_t> {
    AW_TRY(std::vector<std::string> argv, worker_argv(worker, req));
    // Everything the child touches is built before fork: it only calls async-signal-safe code.
    CStrings a(std::move(argv)), e(req.env);
    pid_t pid = ::fork();
    if (pid < 0) return fail("fork: {}", errno_text(errno));
    if (pid == 0) child(req, a.get(), e.get());
    return pid;
  };
}

}  // namespace aw
