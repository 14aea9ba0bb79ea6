#include "isolate/user/warden.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <sstream>

#include "base/argv.h"
#include "base/fs.h"
#include "isolate/sandbox/steps.h"  // apply_cgroup_limits: the owner's side of the limits
#include "isolate/user/handoff.h"
#include "isolate/user/worker_launcher.h"
#include "proc/runner.h"

namespace aw {

namespace {

// After SIGTERM (timeout, Ctrl-C) the command gets this long before the worker's processes are
// killed outright: less than the keeper's grace, so that the warden ends before the keeper's
// SIGKILL would leave the worker's orphans to a keeper that cannot kill them.
constexpr int kTermGraceMs = 1500;

void sleep_ms(int ms) {
  struct timespec ts {
    ms / 1000, (ms % 1000) * 1000L * 1000L
  };
  ::nanosleep(&ts, nullptr);
}

std::string comm_of(pid_t pid) {
  auto t = read_file("/proc/" + std::to_string(pid) + "/comm", 256);
  if (!t) return "?";
  std::string s = *t;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The command as the worker: fds onto 0/1/2, an empty signal mask, then exec sudo. Only
// async-signal-safe calls.
[[noreturn]] void exec_sudo(const ExecRequest& r, char* const* argv, char* const* envp) {
  int fds[3] = {r.stdin_fd, r.stdout_fd, r.stderr_fd};
  for (int i = 0; i < 3; ++i) {
    int fd = fds[i] >= 0 ? fds[i] : ::open("/dev/null", O_RDWR);
    if (fd != i) ::dup2(fd, i);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::chdir("/") != 0) _exit(126);
  ::execve(argv[0], argv, envp);
  _exit(127);
}

// Kill and reap everything the worker left; write the report (with the failure, when something
// of the worker's survives: after_phase then loses the unit).
void clean_up(const WorkerUser& worker, const std::string& report) {
  WardenReport rep;
  if (auto left = worker_processes(worker.uid); left) {
    rep.killed = static_cast<int>(left->size());
    for (pid_t p : *left) {
      std::string n = comm_of(p);
      if (std::find(rep.names.begin(), rep.names.end(), n) == rep.names.end())
        rep.names.push_back(n);
    }
  }
  if (auto ok = kill_worker_processes(worker); !ok) rep.failure = ok.error().message;
  // The killed were reparented to us (subreaper): reap them, so that the keeper finds no child.
  for (int round = 0; round < 500; ++round) {
    int st = 0;
    pid_t w = ::waitpid(-1, &st, WNOHANG | __WALL);
    if (w > 0) continue;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) break;  // ECHILD: none left
    sleep_ms(10);
  }
  if (rep.killed == 0 && rep.failure.empty()) return;
  std::string text = std::to_string(rep.killed) + "\n";
  for (const auto& n : rep.names) text += n + "\n";
  if (!rep.failure.empty()) text += "!" + rep.failure + "\n";
  (void)write_file(report, text, 0600);
}

// The warden itself: the phase's main process, a direct child of the keeper.
[[noreturn]] void warden(const WorkerUser& worker, const std::string& report, const ExecRequest& r,
                         char* const* argv, char* const* envp, const SandboxPlan* limits) {
  ::setsid();  // the keeper signals -main: the warden's group, which sudo stays in
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (!r.cgroup_procs.empty()) {
    int fd = ::open(r.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    std::string pid = std::to_string(::getpid());
    if (fd < 0 || ::write(fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size()))
      _exit(126);
    ::close(fd);
  }
  if (limits && limits->apply_limits && limits->enabled("limits")) {
    auto st = sandbox::apply_cgroup_limits(*limits, r, ::getpid());
    if (!st) {
      std::string msg = "awaywork: sandbox: cgroup limits: " + st.error().message + "\n";
      if (r.stderr_fd >= 0) (void)!::write(r.stderr_fd, msg.data(), msg.size());
      _exit(126);
    }
  }
  // The keeper's mask is inherited: SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT blocked. Keep it
  // and wait for them synchronously.
  sigset_t watched;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&watched, s);
  ::sigprocmask(SIG_BLOCK, &watched, nullptr);
  pid_t cmd = ::fork();
  if (cmd < 0) _exit(126);
  if (cmd == 0) exec_sudo(r, argv, envp);
  for (int fd : {r.stdin_fd, r.stdout_fd, r.stderr_fd})
    if (fd >= 0) ::close(fd);
  int status = 0;
  int term_ms = -1;  // ms since SIGTERM, -1 before
  for (;;) {
    pid_t w = ::waitpid(cmd, &status, WNOHANG);
    if (w == cmd) break;
    if (w < 0 && errno != EINTR) {
      status = 1 << 8;
      break;
    }
    struct timespec tick {
      0, 100L * 1000 * 1000
    };
    siginfo_t si;
    int sig = ::sigtimedwait(&watched, &si, &tick);
    if (sig > 0 && sig != SIGCHLD && term_ms < 0) term_ms = 0;
    if (term_ms >= 0) {
      term_ms += 100;
      if (term_ms >= kTermGraceMs) (void)kill_worker_processes(worker);
    }
  }
  clean_up(worker, report);
  exit_like(status);
}

}  // namespace

namespace {

Launcher warded(const WorkerUser& worker, const std::string& report,
                std::optional<WorkerSandbox> sandbox, std::optional<SandboxPlan> limits) {
  return [worker, report, sandbox, limits](const ExecRequest& req) -> Result<pid_t> {
    AW_TRY(std::vector<std::string> argv, worker_argv(worker, req, sandbox ? &*sandbox : nullptr));
    CStrings a(std::move(argv)), e(req.env);
    (void)::unlink(report.c_str());
    pid_t pid = ::fork();
    if (pid < 0) return fail("fork: {}", errno_text(errno));
    if (pid == 0) warden(worker, report, req, a.get(), e.get(), limits ? &*limits : nullptr);
    return pid;
  };
}

}  // namespace

Launcher make_warded_worker_launcher(const WorkerUser& worker, const std::string& report) {
  return warded(worker, report, std::nullopt, std::nullopt);
}

Launcher make_warded_worker_launcher(const WorkerUser& worker, const std::string& report,
                                     const WorkerSandbox& sandbox, const SandboxPlan& limits) {
  return warded(worker, report, sandbox, limits);
}

WardenReport read_warden_report(const std::string& report) {
  WardenReport rep;
  auto text = read_file(report, 1 << 16);
  if (!text) return rep;
  (void)::unlink(report.c_str());
  std::istringstream in(*text);
  std::string line;
  if (std::getline(in, line)) rep.killed = std::atoi(line.c_str());
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '!')
      rep.failure = line.substr(1);
    else if (!line.empty())
      rep.names.push_back(line);
  }
  return rep;
}

}  // namespace aw
