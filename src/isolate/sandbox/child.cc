// Child side: the namespace's init. It waits for the parent's go, builds the view, then forks the
// phase's main process and reaps until that one ends; its own exit takes the namespace down.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "isolate/sandbox/steps.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace aw::sandbox {
namespace {

[[noreturn]] void die(int sock, const std::string& text) {
  std::string msg = text.empty() ? std::string("unknown failure") : text;
  (void)!::write(sock, msg.data(), msg.size());
  ::_exit(126);
}

void no_op(int) {}

// The signals the runner uses to stop a phase; init forwards them to everything inside.
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// Stdio fds may collide with 0-2 or each other: move them high first, then into place.
std::string setup_stdio(const ExecRequest& req) {
  int src[3] = {req.stdin_fd, req.stdout_fd, req.stderr_fd};
  int high[3];
  for (int i = 0; i < 3; ++i) {
    int fd = src[i] >= 0 ? src[i] : ::open("/dev/null", O_RDWR | O_CLOEXEC);
    high[i] = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    if (high[i] < 0) return step_error("stdio", "dup", errno);
  }
  for (int i = 0; i < 3; ++i)
    if (::dup2(high[i], i) < 0) return step_error("stdio", "dup2", errno);
  return {};
}

[[noreturn]] void payload_main(const Prepared& p, int sock) {
  const SandboxPlan& plan = *p.plan;
  sigset_t none;
  sigemptyset(&none);
  for (int s : kForwarded) ::signal(s, SIG_DFL);
  ::signal(SIGCHLD, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  std::string err = setup_stdio(*p.req);
  if (err.empty() && ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
    err = step_error("fds", "close_range", errno);
  if (err.empty() && !p.req->cwd.empty() && ::chdir(p.req->cwd.c_str()) != 0)
    err = step_error("cwd", p.req->cwd, errno);
  if (err.empty()) err = apply_rlimits(plan);
  if (err.empty()) err = drop_privileges(plan);
  if (err.empty() && p.landlock_abi > 0) err = apply_landlock(plan, p.landlock_abi);
  if (err.empty())
    err =
        apply_seccomp(p.seccomp, plan.enabled("nnp"));  // last: it forbids what the steps above use
  if (!err.empty()) die(sock, err);
  int last = ENOENT;
  for (const auto& path : p.exec_paths) {
    ::execve(path.c_str(), p.argv.get(), p.envp.get());
    if (errno != ENOENT && errno != ENOTDIR) last = errno;
  }
  die(sock, step_error("exec", p.req->argv[0], last));
}

// Mirror the main process's end: exit code, or 128+signal (an init cannot kill itself).
[[noreturn]] void exit_like(int status) {
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  ::_exit(128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

[[noreturn]] void reap_until(pid_t main_pid, bool own_pidns) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int s : kForwarded) sigaddset(&set, s);
  for (;;) {
    int status = 0;
    pid_t got;
    while ((got = ::waitpid(-1, &status, WNOHANG)) > 0)
      if (got == main_pid) exit_like(status);
    if (got < 0 && errno == ECHILD) ::_exit(127);
    siginfo_t info;
    int sig = ::sigwaitinfo(&set, &info);
    // Forward to everything in the namespace (kill -1 spares init), or to the main process's
    // group when there is no pid namespace to scope -1.
    if (sig > 0 && sig != SIGCHLD) ::kill(own_pidns ? -1 : -main_pid, sig);
  }
}

}  // namespace

void child_main(const Prepared& p, int sock) {
  const SandboxPlan& plan = *p.plan;
  // Block the forwarded signals with a handler set: an init ignores default-action signals, a
  // blocked one with a handler waits for sigwaitinfo. SIGCHLD too, so no exit is missed.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int s : kForwarded) {
    ::signal(s, no_op);
    sigaddset(&set, s);
  }
  ::signal(SIGCHLD, no_op);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  if (plan.enabled("diewithparent") && ::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
    die(sock, step_error("die-with-parent", "prctl", errno));
  // A caller that changed uid (sudo, setpriv) is not dumpable, which makes our /proc files root's
  // and the parent could not write our id maps.
  ::prctl(PR_SET_DUMPABLE, 1);
  if (::write(sock, "R", 1) != 1) ::_exit(126);
  char go = 0;
  if (::read(sock, &go, 1) != 1 || go != 'G') ::_exit(126);  // the parent gave up or died
  if (plan.enabled("setsid") && ::setsid() < 0) die(sock, step_error("session", "setsid", errno));
  if (::unshare(CLONE_NEWCGROUP) != 0) die(sock, step_error("cgroup namespace", "unshare", errno));
  if (::sethostname(plan.hostname.data(), plan.hostname.size()) != 0)
    die(sock, step_error("uts namespace", "sethostname", errno));
  if (plan.network != Network::host && plan.enabled("netns") && !p.joined_unit_netns) {
    std::string err = bring_up_loopback();
    if (!err.empty()) die(sock, err);
  }
  std::vector<BridgeFds> bridges;
  std::string err = open_bridges(plan, &bridges);
  if (!err.empty()) die(sock, err);
  err = build_fs_view(plan);
  if (!err.empty()) die(sock, err);
  if (!bridges.empty()) {
    pid_t bridge = ::fork();
    if (bridge < 0) die(sock, step_error("bridge", "fork", errno));
    if (bridge == 0) {
      ::close(sock);
      run_bridges(p, bridges);
    }
  }
  pid_t main_pid = ::fork();
  if (main_pid < 0) die(sock, step_error("fork", "main process", errno));
  if (main_pid == 0) payload_main(p, sock);
  ::close(sock);
  // Keep no fds of the caller: a pipe held open by init would keep the runner's reader waiting.
  ::syscall(SYS_close_range, 0U, ~0U, 0U);
  ::open("/dev/null", O_RDWR);
  ::dup2(0, 1);
  ::dup2(0, 2);
  reap_until(main_pid, plan.enabled("pidns"));
}

}  // namespace aw::sandbox
