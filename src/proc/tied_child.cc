#include "proc/tied_child.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

#include "base/argv.h"
#include "base/fs.h"
#include "base/unique_fd.h"

extern char** environ;

namespace aw {

namespace {

// Nothing but 0, 1 and 2 survives the exec: not a socket of serve's, not watch's database.
void close_above_2() {
  if (::close_range(3, ~0U, 0) == 0) return;
  // A kernel before 5.9: one by one, up to the limit on open fds.
  rlimit r{};
  rlim_t top = 1 << 16;
  if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < (1 << 20))
    top = r.rlim_cur;
  for (rlim_t fd = 3; fd < top; ++fd) ::close(static_cast<int>(fd));
}

// The child, from fork to exec: system calls only (the parent may be threaded). It starts with
// every signal blocked (the parent blocked them around the fork), so that no handler of the
// parent's runs in this copy of it, and a SIGTERM sent meanwhile waits for the unblock below,
// where it meets the default action.
[[noreturn]] void become(char* const* argv, pid_t parent, int null_fd, int out_fd) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::_exit(127);  // the parent died before the prctl took hold
  ::setpgid(0, 0);
  // Each source above 2 first: one may itself be 0, 1 or 2 (a parent started with a standard fd
  // closed), and dup2 onto itself would leave it close-on-exec.
  int src[3] = {null_fd, out_fd, out_fd};
  int tmp[3];
  for (int i = 0; i < 3; ++i)
    if ((tmp[i] = ::fcntl(src[i], F_DUPFD_CLOEXEC, 3)) < 0) ::_exit(127);
  for (int i = 0; i < 3; ++i)
    if (::dup2(tmp[i], i) < 0) ::_exit(127);
  close_above_2();
  // The mask outlives the exec: the run must get its SIGTERM.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(argv[0], argv, environ);
  ::_exit(127);
}

}  // namespace

Result<pid_t> spawn_tied_child(const std::vector<std::string>& argv, int out_fd) {
  if (argv.empty()) return fail("start a child: empty argv");
  CStrings args(argv);  // before the fork: the child may not allocate
  UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null) return fail("open /dev/null: {}", errno_text(errno));
  pid_t parent = ::getpid();
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = ::fork();
  if (pid == 0) become(args.get(), parent, null.fd, out_fd);
  int err = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return fail("fork: {}", errno_text(err));
  return pid;
}

}  // namespace aw
