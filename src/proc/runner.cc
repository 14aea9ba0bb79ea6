// The parent side of run_phase: pipes, the keeper's fork, output streaming through on_output,
// stdin feeding, cancel polling, and the keeper's report.
#include "proc/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "proc/keeper.h"
#include "proc/launch.h"
#include "proc/runner_knobs.h"

namespace aw {

namespace {

constexpr int kCancelPollMs = 100;

using Fd = UniqueFd;

bool make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return false;
  r.fd = p[0];
  w.fd = p[1];
  return true;
}

void set_nonblock(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int64_t now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

// write() that cannot raise SIGPIPE in awaywork: block it on this thread for the call and swallow
// the one our write caused, leaving any SIGPIPE that was already pending alone.
ssize_t write_nosigpipe(int fd, const void* buf, size_t n) {
  sigset_t pipe_set, old, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t r = ::write(fd, buf, n);
  int err = errno;
  if (r < 0 && err == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (::sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return r;
}

// Leaf names must be plain cgroup folder names.
std::string leaf_name(const std::string& phase) {
  std::string out;
  for (char c : phase.substr(0, 40))
    out += (isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out.insert(0, "phase");
  return out + "-" + std::to_string(::getpid()) + "-";
}

struct Channels {
  Fd in_r, in_w, out_r, out_w, err_r, err_w, ctl_r, ctl_w, rep_r, rep_w;
};

Status open_channels(const PhaseSpec& spec, Channels& c) {
  bool ok = make_pipe(c.out_r, c.out_w) && make_pipe(c.err_r, c.err_w) &&
            make_pipe(c.ctl_r, c.ctl_w) && make_pipe(c.rep_r, c.rep_w);
  if (ok && spec.stdin_data) ok = make_pipe(c.in_r, c.in_w);
  if (ok && !spec.stdin_data) ok = (c.in_r.fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
  if (!ok) return fail("pipe: {}", errno_text(errno));
  for (int fd : {c.out_r.fd, c.err_r.fd, c.rep_r.fd}) set_nonblock(fd);
  if (c.in_w) set_nonblock(c.in_w.fd);
  return {};
}

// Everything between the fork and the keeper's final report.
class Pump {
 public:
  Pump(const PhaseSpec& spec, Channels& c) : spec_(spec), c_(c) {
    if (!spec.stdin_data || spec.stdin_data->empty()) c_.in_w.reset();
  }

  // Runs until the final report; false when the keeper went away without one.
  bool run() {
    try {
      return pump();
    } catch (const std::exception& e) {
      hook_error_ = e.what();
    } catch (...) {
      hook_error_ = "unknown exception";
    }
    // A hook threw: stop the phase and keep draining (without hooks) until the keeper has proved
    // the tree dead, so that the error leaves nothing running behind it.
    quiet_ = true;
    cancel();
    return pump();
  }

  const std::string& hook_error() const { return hook_error_; }

 private:
  void cancel() {
    if (cancel_sent_) return;
    char b = 'c';
    write_nosigpipe(c_.ctl_w.fd, &b, 1);
    cancel_sent_ = true;
  }

  bool pump() {
    int64_t next_check = now_ms() + kCancelPollMs;
    while (!have_final_) {
      pollfd p[4];
      int n = 0, i_out = -1, i_err = -1, i_in = -1, i_rep = -1;
      if (c_.out_r) p[i_out = n++] = {c_.out_r.fd, POLLIN, 0};
      if (c_.err_r) p[i_err = n++] = {c_.err_r.fd, POLLIN, 0};
      if (c_.in_w) p[i_in = n++] = {c_.in_w.fd, POLLOUT, 0};
      if (c_.rep_r) p[i_rep = n++] = {c_.rep_r.fd, POLLIN, 0};
      if (!c_.rep_r) return false;
      bool polling = spec_.cancelled && !cancel_sent_ && !quiet_;
      // Wake for the next cancel poll or the end of a pause, whichever comes first.
      int64_t wake = polling ? next_check : -1;
      if (quiet_due_ >= 0 && !quiet_ && (wake < 0 || quiet_due_ < wake)) wake = quiet_due_;
      int timeout = wake >= 0 ? static_cast<int>(std::max<int64_t>(0, wake - now_ms())) : -1;
      if (::poll(p, static_cast<nfds_t>(n), timeout) < 0 && errno != EINTR) return false;
      auto ready = [&](int i, short ev) {
        return i >= 0 && (p[i].revents & (ev | POLLHUP | POLLERR));
      };
      if (ready(i_out, POLLIN)) read_output(c_.out_r, Stream::out);
      if (ready(i_err, POLLIN)) read_output(c_.err_r, Stream::err);
      if (ready(i_in, POLLOUT)) feed_stdin();
      if (ready(i_rep, POLLIN)) read_report();
      if (quiet_due_ >= 0 && now_ms() >= quiet_due_) {
        quiet_due_ = -1;  // once per pause: the next output sets it again
        if (!quiet_) spec_.on_quiet();
      }
      if (polling && now_ms() >= next_check) {
        next_check = now_ms() + kCancelPollMs;
        if (spec_.cancelled()) cancel();
      }
    }
    // Every writer of the output pipes is dead now, so what is left is already in them. Read it to
    // EOF; EAGAIN would mean a writer outside the phase, and we do not wait for that.
    c_.in_w.reset();
    while (c_.out_r && read_output(c_.out_r, Stream::out)) {
    }
    while (c_.err_r && read_output(c_.err_r, Stream::err)) {
    }
    return true;
  }

 public:
  const KeeperReport& final_report() const { return final_; }

 private:
  // One read; false when there is nothing more to read right now (EAGAIN) or ever (EOF).
  bool read_output(Fd& fd, Stream s) {
    ssize_t n = ::read(fd.fd, buf_, sizeof buf_);
    if (n > 0) {
      if (spec_.on_output && !quiet_)
        spec_.on_output(s, std::string_view(buf_, static_cast<size_t>(n)));
      if (spec_.on_quiet && !quiet_) quiet_due_ = now_ms() + spec_.quiet_after.count();
      return true;
    }
    if (n < 0 && (errno == EINTR)) return true;
    if (n < 0 && errno == EAGAIN) return false;
    fd.reset();
    return false;
  }

  void feed_stdin() {
    const std::string& data = *spec_.stdin_data;
    ssize_t n = write_nosigpipe(c_.in_w.fd, data.data() + fed_, data.size() - fed_);
    if (n > 0) fed_ += static_cast<size_t>(n);
    // EPIPE: the phase closed its stdin; it does not want the rest.
    if ((n < 0 && errno != EAGAIN && errno != EINTR) || fed_ >= data.size()) c_.in_w.reset();
  }

  void read_report() {
    char* dst = reinterpret_cast<char*>(&rec_);
    ssize_t n = ::read(c_.rep_r.fd, dst + rec_len_, sizeof rec_ - rec_len_);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      c_.rep_r.reset();
      return;
    }
    rec_len_ += static_cast<size_t>(n);
    if (rec_len_ < sizeof rec_) return;
    rec_len_ = 0;
    if (rec_.kind == KeeperReport::started && spec_.on_start && !quiet_) spec_.on_start(rec_.pid);
    if (rec_.kind == KeeperReport::final) {
      final_ = rec_;
      have_final_ = true;
    }
  }

  const PhaseSpec& spec_;
  Channels& c_;
  size_t fed_ = 0;
  bool cancel_sent_ = false;
  bool have_final_ = false;
  bool quiet_ = false;      // a hook threw: call none again
  int64_t quiet_due_ = -1;  // when on_quiet is due (now_ms), -1: not before more output
  std::string hook_error_;
  KeeperReport rec_{}, final_{};
  size_t rec_len_ = 0;
  char buf_[65536];
};

PhaseResult to_result(const KeeperReport& r) {
  PhaseResult out;
  out.end = static_cast<PhaseEnd>(r.end);
  out.exit_code = r.exit_code;
  out.signal = r.signal;
  out.duration = std::chrono::milliseconds(r.duration_ms);
  out.leftovers_killed = r.leftovers;
  out.oom_kills = r.oom_kills;
  out.verified_empty = r.verified_empty != 0;
  out.containment = containment_name(static_cast<CgroupKind>(r.containment));
  out.start_error = r.start_error;
  std::string names = r.names;
  for (size_t pos = 0; pos < names.size();) {
    size_t nl = names.find('\n', pos);
    if (nl == std::string::npos) nl = names.size();
    out.leftover_names.push_back(names.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string status_text(int st) {
  if (WIFEXITED(st)) return fmt::format("exit {}", WEXITSTATUS(st));
  if (WIFSIGNALED(st)) return fmt::format("signal {}", WTERMSIG(st));
  return "unknown status";
}

// The keeper died (killed from outside): its main process died with it (PDEATHSIG), and whatever
// else the phase started is still in the phase's cgroup, if it had one. Empty that here.
std::string sweep_after_keeper(const CgroupRoots& roots, const std::string& leaf) {
  PhaseCgroup cg = existing_phase_cgroup(roots, leaf);
  if (cg.kind == CgroupKind::none) return "no cgroup to sweep: processes it started may survive";
  for (int i = 0; i < 200 && !cgroup_members(cg).empty(); ++i) {
    cgroup_kill_all(cg, [](pid_t) {});
    timespec ts{0, 5000000};
    ::nanosleep(&ts, nullptr);
  }
  if (!cgroup_members(cg).empty()) return "its cgroup " + cg.dir + " could not be emptied";
  remove_phase_cgroup(cg);
  return "its cgroup was emptied";
}

}  // namespace

Result<PhaseResult> run_phase(const PhaseSpec& spec) {
  return run_phase_with(spec, {});
}

Result<PhaseResult> run_phase_with(const PhaseSpec& spec, const RunnerKnobs& knobs) {
  if (spec.argv.empty()) return fail("phase {}: empty argv", spec.name);
  std::unique_ptr<PreparedExec> prep;
  if (!spec.launcher) {
    auto p = prepare_exec(spec);
    if (!p) {  // nothing was started, so there is nothing to contain
      PhaseResult r;
      r.end = PhaseEnd::failed_to_start;
      r.start_error = p.error().message;
      r.verified_empty = true;
      return r;
    }
    prep = std::move(*p);
  }
  Channels c;
  AW_CHECK(with_context(open_channels(spec, c), "phase " + spec.name));

  KeeperPlan plan;
  plan.spec = &spec;
  plan.req.argv = spec.argv;
  plan.req.env = spec.env;
  plan.req.cwd = spec.cwd;
  plan.req.stdin_fd = c.in_r.fd;
  plan.req.stdout_fd = c.out_w.fd;
  plan.req.stderr_fd = c.err_w.fd;
  plan.prep = prep.get();
  plan.roots = find_cgroup_roots(knobs.cgroup);
  plan.leaf_prefix = leaf_name(spec.name);
  plan.control_fd = c.ctl_r.fd;
  plan.report_fd = c.rep_w.fd;
  plan.keep_fds = {c.in_r.fd, c.out_w.fd, c.err_w.fd, c.ctl_r.fd, c.rep_w.fd};
  plan.keep_fds.insert(plan.keep_fds.end(), spec.inherit_fds.begin(), spec.inherit_fds.end());
  plan.parent = ::getpid();

  pid_t keeper = ::fork();
  if (keeper < 0) return fail("phase {}: fork: {}", spec.name, errno_text(errno));
  if (keeper == 0) keeper_main(plan);
  for (Fd* f : {&c.in_r, &c.out_w, &c.err_w, &c.ctl_r, &c.rep_w}) f->reset();

  Pump pump(spec, c);
  bool reported = pump.run();
  c.ctl_w.reset();  // a keeper still waiting (it should not be) reads EOF and stops the phase
  int st = 0;
  pid_t w;
  while ((w = ::waitpid(keeper, &st, __WALL)) < 0 && errno == EINTR) {
  }
  if (!reported) {
    std::string how = w == keeper ? status_text(st) : "not waitable";
    return fail("phase {}: the keeper ended without a report ({}); {}", spec.name, how,
                sweep_after_keeper(plan.roots, plan.leaf_prefix + std::to_string(keeper)));
  }
  const KeeperReport& rep = pump.final_report();
  if (rep.runner_failed) return fail("phase {}: {}", spec.name, rep.failure);
  if (!pump.hook_error().empty())
    return fail("phase {}: a hook threw ({}); the phase was stopped", spec.name, pump.hook_error());
  PhaseResult out = to_result(rep);
  // Where the v2 group came from (root, the owner's delegated group, a systemd user scope).
  if (out.containment == containment_name(CgroupKind::v2) && !plan.roots.v2_source.empty())
    out.containment += " in " + plan.roots.v2_source;
  return out;
}

CgroupSources cgroup_sources() {
  CgroupSources out;
  CgroupRoots r = find_cgroup_roots(CgroupMode::automatic, &out.why_no_v2);
  if (!r.v2.empty()) {
    out.containment =
        r.v2_source.empty() ? "cgroup v2 (" + r.v2 + ")" : "cgroup v2 in " + r.v2_source;
    out.v2_controllers = v2_limit_controllers(r);
    out.why_no_v2.clear();
  } else if (!r.v1_freezer.empty() && ::access(r.v1_freezer.c_str(), W_OK) == 0) {
    out.containment = "cgroup v1 freezer (" + r.v1_freezer + ")";
  } else {
    out.containment = "subreaper (no cgroup this owner may make groups in)";
  }
  return out;
}

int sweep_orphaned_phases() {
  return sweep_orphaned_phase_cgroups(find_cgroup_roots(CgroupMode::automatic));
}

std::string describe(const PhaseResult& r) {
  auto sig = [](int s) {
    const char* abbrev = ::sigabbrev_np(s);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", s);
  };
  auto secs = [](std::chrono::milliseconds d) {
    auto ms = d.count();
    if (ms < 1000) return fmt::format("{} ms", ms);
    if (ms % 1000 == 0 || ms >= 10000) return fmt::format("{} s", ms / 1000);
    return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
  };
  switch (r.end) {
    case PhaseEnd::exited:
      return fmt::format("exit {}", r.exit_code);
    case PhaseEnd::signaled:
      return fmt::format("killed by {}", sig(r.signal));
    case PhaseEnd::timed_out:
      return r.signal
                 ? fmt::format("timed out after {} (ended by {})", secs(r.duration), sig(r.signal))
                 : fmt::format("timed out after {}", secs(r.duration));
    case PhaseEnd::cancelled:
      return fmt::format("cancelled after {}", secs(r.duration));
    case PhaseEnd::failed_to_start:
      return fmt::format("failed to start: {}", r.start_error);
  }
  return "unknown";
}

}  // namespace aw
