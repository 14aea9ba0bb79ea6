#include "proc/launch.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "proc/capture.h"

namespace aw {

namespace {

// errno_text without strerror: it runs in the keeper, a fork of a possibly threaded process, where
// strerror's translation lookup could wait on a lock held by a thread that no longer exists.
std::string errno_desc(int err) {
  const char* d = ::strerrordesc_np(err);
  return fmt::format("{} (errno {})", d ? d : "unknown error", err);
}

enum Step : int { kSetup = 1, kCgroup, kFds, kChdir, kExec };

struct ChildError {
  int step;
  int err;
};

std::string path_value(const std::vector<std::string>& env) {
  for (const auto& kv : env)
    if (kv.rfind("PATH=", 0) == 0) return kv.substr(5);
  return "/usr/local/bin:/usr/bin:/bin";
}

[[noreturn]] void child_fail(int fd, Step step) {
  ChildError e{step, errno};
  ssize_t n = ::write(fd, &e, sizeof e);
  (void)n;
  ::_exit(127);
}

bool join_cgroup(const char* procs) {
  char buf[24];
  char* end = std::to_chars(buf, buf + sizeof buf, static_cast<long>(::getpid())).ptr;
  int fd = ::open(procs, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::write(fd, buf, static_cast<size_t>(end - buf));
  int err = errno;
  ::close(fd);
  errno = err;
  return n == end - buf;
}

// Runs in the forked child: async-signal-safe calls only, no allocation.
[[noreturn]] void child(const PreparedExec& prep, const ExecRequest& req, int err_fd,
                        pid_t keeper) {
  // Move the error pipe above 2 so the dup2s below cannot clobber it.
  if (err_fd < 3) err_fd = ::fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
  if (::setpgid(0, 0) != 0) child_fail(err_fd, kSetup);
  // Should the keeper die (it is killed with awaywork), the main process goes with it; the rest of
  // the tree is still in the cgroup.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != keeper) ::_exit(127);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!req.cgroup_procs.empty() && !join_cgroup(req.cgroup_procs.c_str()))
    child_fail(err_fd, kCgroup);
  if (!prep.extra_procs.empty()) join_cgroup(prep.extra_procs.c_str());  // limits only: best effort
  // Duplicate the sources above 2 first: any of them may itself be 0, 1 or 2.
  int src[3] = {req.stdin_fd, req.stdout_fd, req.stderr_fd};
  int tmp[3];
  for (int i = 0; i < 3; ++i)
    if ((tmp[i] = ::fcntl(src[i], F_DUPFD_CLOEXEC, 3)) < 0) child_fail(err_fd, kFds);
  for (int i = 0; i < 3; ++i)
    if (::dup2(tmp[i], i) < 0) child_fail(err_fd, kFds);
  if (!req.cwd.empty() && ::chdir(req.cwd.c_str()) != 0) child_fail(err_fd, kChdir);
  // Nothing but 0, 1 and 2 may survive the exec.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  ::execve(prep.program.c_str(), prep.argv.get(), prep.env.get());
  child_fail(err_fd, kExec);
}

struct ChildArgs {
  const PreparedExec* prep;
  const ExecRequest* req;
  int err_fd;
  pid_t keeper;
};

int child_entry(void* arg) {
  auto* a = static_cast<ChildArgs*>(arg);
  child(*a->prep, *a->req, a->err_fd, a->keeper);
}

std::string step_text(const ChildError& e, const PreparedExec& prep, const ExecRequest& req) {
  switch (e.step) {
    case kCgroup:
      return "join cgroup " + req.cgroup_procs + ": " + errno_desc(e.err);
    case kFds:
      return "set up stdin/stdout/stderr: " + errno_desc(e.err);
    case kChdir:
      return "chdir " + req.cwd + ": " + errno_desc(e.err);
    case kExec:
      return "exec " + prep.program + ": " + errno_desc(e.err);
    default:
      return "set up process group: " + errno_desc(e.err);
  }
}

}  // namespace

Result<std::unique_ptr<PreparedExec>> prepare_exec(const PhaseSpec& spec) {
  if (spec.argv.empty()) return fail("empty argv");
  auto prep = std::make_unique<PreparedExec>();
  AW_TRY(prep->program, find_program(spec.argv[0], path_value(spec.env)));
  prep->argv = CStrings(spec.argv);
  prep->env = CStrings(spec.env);
  return prep;
}

Result<pid_t> launch_default(const PreparedExec& prep, const ExecRequest& req) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return fail("pipe: {}", errno_desc(errno));
  // Like posix_spawn: the child shares our memory (CLONE_VM) and we sleep until it has exec'd or
  // exited (CLONE_VFORK), so no page tables are copied. The child only makes system calls and
  // writes nothing of ours but errno (we are suspended meanwhile), on a stack of its own.
  constexpr size_t kStack = 256 << 10;
  void* stack = ::mmap(nullptr, kStack, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    int err = errno;
    ::close(p[0]);
    ::close(p[1]);
    return fail("mmap: {}", errno_desc(err));
  }
  ChildArgs args{&prep, &req, p[1], ::getpid()};
  pid_t pid = ::clone(child_entry, static_cast<char*>(stack) + kStack,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  int clone_err = errno;
  ::munmap(stack, kStack);
  ::close(p[1]);
  if (pid < 0) {
    ::close(p[0]);
    return fail("clone: {}", errno_desc(clone_err));
  }
  ChildError e{};
  ssize_t n;
  while ((n = ::read(p[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(p[0]);
  if (n <= 0) return pid;  // EOF: the exec happened
  int status;
  while (::waitpid(pid, &status, __WALL) < 0 && errno == EINTR) {
  }
  return fail("{}", step_text(e, prep, req));
}

}  // namespace aw
