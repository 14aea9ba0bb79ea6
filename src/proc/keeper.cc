#include "proc/keeper.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "proc/tree.h"

namespace aw {

namespace {

// How long the keeper keeps killing before it gives up proving the tree dead.
constexpr int64_t kCleanupBoundMs = 20000;

int64_t monotonic_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

void copy_text(char* dst, size_t cap, std::string_view s) {
  size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = 0;
}

void send(int fd, const KeeperReport& r) {
  const char* p = reinterpret_cast<const char*>(&r);
  size_t left = sizeof r;
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; so are we, by PDEATHSIG
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Close every inherited fd but ours: another phase's pipe kept open here would keep that phase's
// stdin from ever reaching EOF.
void close_other_fds(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned next = 3;
  for (int fd : keep) {
    if (fd < static_cast<int>(next)) continue;
    if (static_cast<unsigned>(fd) > next) ::close_range(next, static_cast<unsigned>(fd) - 1, 0);
    next = static_cast<unsigned>(fd) + 1;
  }
  ::close_range(next, ~0U, 0);
}

sigset_t watched_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&s, sig);
  return s;
}

// The keeper starts with the parent's handlers and mask; it wants defaults, with the signals it
// handles (and SIGPIPE) blocked. SIGTERM/SIGINT/SIGHUP/SIGQUIT sent to the keeper mean "cancel".
int setup_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  sigset_t blocked = watched_signals();
  sigaddset(&blocked, SIGPIPE);
  ::sigprocmask(SIG_SETMASK, &blocked, nullptr);
  sigset_t watched = watched_signals();
  return ::signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
}

// Drain the signalfd; true when something other than SIGCHLD (a request to stop) arrived.
bool drain_signals(int sfd) {
  bool stop = false;
  signalfd_siginfo si;
  while (::read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
    if (si.ssi_signo != SIGCHLD) stop = true;
  return stop;
}

// Reap every child that has ended. Sets *main_status when `main` is among them. Returns true when
// the keeper has no child left at all (ECHILD): as a subreaper that proves no descendant lives.
bool reap(pid_t main, int* main_status, bool* main_done) {
  for (;;) {
    int st = 0;
    pid_t w = ::waitpid(-1, &st, WNOHANG | __WALL);
    if (w > 0) {
      if (w == main) {
        *main_status = st;
        *main_done = true;
      }
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    return w < 0 && errno == ECHILD;
  }
}

void signal_phase(pid_t main, const PhaseCgroup& cg, int sig) {
  ::kill(-main, sig);  // the main process is alive (not reaped), so its group id is still its own
  ::kill(main, sig);
  for (pid_t p : live_descendants(::getpid())) ::kill(p, sig);
  for (pid_t p : cgroup_members(cg)) ::kill(p, sig);
}

struct Waited {
  PhaseEnd end = PhaseEnd::exited;
  int status = 0;
};

// Wait for the main process; on timeout or cancel: SIGTERM everything, wait the grace, SIGKILL.
Waited wait_main(const KeeperPlan& k, pid_t main, const PhaseCgroup& cg, int sfd, int64_t start) {
  const PhaseSpec& spec = *k.spec;
  // The pidfd wakes us even for a child that does not send SIGCHLD. (glibc 2.36's <sys/pidfd.h>
  // lacks extern "C", hence the raw syscall.)
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, main, 0));
  int control = k.control_fd;
  Waited w;
  bool done = false, stopping = false, killed = false;
  const int64_t deadline = start + spec.timeout.count();
  int64_t kill_at = 0;
  auto stop = [&](PhaseEnd why) {
    if (stopping) return;
    stopping = true;
    w.end = why;
    signal_phase(main, cg, SIGTERM);
    kill_at = monotonic_ms() + std::max<int64_t>(0, spec.grace.count());
  };
  for (;;) {
    reap(main, &w.status, &done);
    if (done) break;
    int64_t now = monotonic_ms();
    if (!stopping && now >= deadline) stop(PhaseEnd::timed_out);
    if (stopping && !killed && now >= kill_at) {
      ::kill(-main, SIGKILL);
      ::kill(main, SIGKILL);
      killed = true;
    }
    int64_t until = !stopping ? deadline : (!killed ? kill_at : now + 1000);
    int timeout = static_cast<int>(std::clamp<int64_t>(until - now, 0, 60000));
    pollfd p[3] = {{sfd, POLLIN, 0}, {pidfd, POLLIN, 0}, {control, POLLIN, 0}};
    if (::poll(p, control >= 0 ? 3 : 2, timeout) < 0 && errno != EINTR) {
      timespec pause{0, 10000000};  // should not happen; keep the deadlines, do not spin
      ::nanosleep(&pause, nullptr);
    }
    if (drain_signals(sfd)) stop(PhaseEnd::cancelled);
    if (control >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      char c;
      ssize_t r = ::read(control, &c, 1);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r <= 0) control = -1;  // the parent let go of us: stop too
      stop(PhaseEnd::cancelled);
    }
  }
  if (pidfd >= 0) ::close(pidfd);
  if (!stopping) w.end = WIFSIGNALED(w.status) ? PhaseEnd::signaled : PhaseEnd::exited;
  return w;
}

struct Cleanup {
  std::unordered_set<pid_t> seen;
  std::vector<std::string> names;  // distinct
  bool verified = false;
};

// Kill everything the phase left: the cgroup's members and the keeper's descendants (orphans were
// reparented to it), until waitpid says ECHILD and the cgroup lists nobody.
Cleanup kill_leftovers(const PhaseCgroup& cg, int sfd) {
  Cleanup c;
  auto note = [&](pid_t p) {
    if (c.seen.count(p)) return;
    std::string name = comm_of(p);  // before the kill: afterwards it may be gone
    if (!is_live(p)) return;
    c.seen.insert(p);
    if (std::find(c.names.begin(), c.names.end(), name) == c.names.end()) c.names.push_back(name);
  };
  const int64_t bound = monotonic_ms() + kCleanupBoundMs;
  int unused = 0;
  bool unused_done = false;
  for (int round = 0;; ++round) {
    bool no_children = reap(-1, &unused, &unused_done);
    std::vector<pid_t> members = cgroup_members(cg);
    if (no_children && members.empty()) {
      c.verified = true;
      break;
    }
    if (monotonic_ms() > bound) break;
    std::vector<pid_t> tree;
    if (!no_children) tree = live_descendants(::getpid());
    for (pid_t p : tree) note(p);
    cgroup_kill_all(cg, note);
    for (pid_t p : tree) ::kill(p, SIGKILL);
    // Wait for the next child to end (SIGCHLD), briefly: the dying need a moment to exit.
    pollfd pf{sfd, POLLIN, 0};
    ::poll(&pf, 1, round < 5 ? 1 : 10);
    drain_signals(sfd);
  }
  return c;
}

void join_pids(const std::string& dir, pid_t pid) {
  std::string procs = dir + "/cgroup.procs", text = std::to_string(pid);
  int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = ::write(fd, text.data(), text.size());
  (void)n;
  ::close(fd);
}

Result<pid_t> launch(KeeperPlan& k) {
  if (k.prep) return launch_default(*k.prep, k.req);
  try {
    return k.spec->launcher(k.req);
  } catch (const std::exception& e) {
    return fail("launcher: {}", e.what());
  } catch (...) {
    return fail("launcher failed");
  }
}

}  // namespace

void keeper_main(KeeperPlan& k) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != k.parent) ::_exit(1);  // awaywork died before the prctl
  close_other_fds(k.keep_fds);
  ::setpgid(0, 0);  // the terminal's Ctrl-C goes to awaywork, which decides whether to cancel
  int sfd = setup_signals();
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);

  PhaseCgroup cg = create_phase_cgroup(k.roots, k.leaf_prefix + std::to_string(::getpid()));
  if (cg.kind != CgroupKind::none) {
    k.req.cgroup_procs = cg.procs;
    k.req.cgroup_dir = cg.dir;
  }
  if (k.prep && !cg.pids_dir.empty()) k.prep->extra_procs = cg.pids_dir + "/cgroup.procs";

  KeeperReport rep;
  rep.containment = static_cast<int32_t>(cg.kind);
  const int64_t start = monotonic_ms();
  Result<pid_t> main = launch(k);
  for (int fd : {k.req.stdin_fd, k.req.stdout_fd, k.req.stderr_fd}) ::close(fd);
  if (!main) {
    rep.end = static_cast<int32_t>(PhaseEnd::failed_to_start);
    copy_text(rep.start_error, sizeof rep.start_error, main.error().message);
  } else {
    // The default launcher's child joined the v1 pids folder itself; another launcher's main
    // process is put there now (limits only: the freezer folder is what contains).
    if (!k.prep && !cg.pids_dir.empty()) join_pids(cg.pids_dir, *main);
    KeeperReport started;
    started.kind = KeeperReport::started;
    started.pid = *main;
    send(k.report_fd, started);
    Waited w = wait_main(k, *main, cg, sfd, start);
    rep.end = static_cast<int32_t>(w.end);
    if (WIFEXITED(w.status)) rep.exit_code = WEXITSTATUS(w.status);
    if (WIFSIGNALED(w.status)) rep.signal = WTERMSIG(w.status);
  }
  rep.duration_ms = monotonic_ms() - start;

  Cleanup c = kill_leftovers(cg, sfd);
  rep.leftovers = static_cast<int32_t>(c.seen.size());
  rep.verified_empty = c.verified;
  std::string names;
  for (const auto& n : c.names) {
    if (names.size() + n.size() + 1 >= sizeof rep.names) break;
    names += names.empty() ? n : "\n" + n;
  }
  copy_text(rep.names, sizeof rep.names, names);
  rep.oom_kills = cgroup_oom_kills(cg);
  if (c.verified && !remove_phase_cgroup(cg)) {
    // The processes are proved dead; a folder that will not go is reported, not fatal.
    copy_text(rep.failure, sizeof rep.failure, "cgroup folder not removed: " + cg.dir);
  }
  if (!c.verified) {
    rep.runner_failed = 1;
    std::string msg = "processes of the phase still alive after " +
                      std::to_string(kCleanupBoundMs / 1000) + " s of killing: " + names;
    copy_text(rep.failure, sizeof rep.failure, msg);
  }
  rep.kind = KeeperReport::final;
  send(k.report_fd, rep);
  ::_exit(0);
}

}  // namespace aw
