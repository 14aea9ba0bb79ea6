// Child side of the network namespace: a new one has only a loopback interface, down.
#include <net/if.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"

namespace aw {
namespace sandbox {

std::string bring_up_loopback() {
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return step_error("network", "socket", errno);
  struct ifreq ifr {};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  int rc = ::ioctl(s, SIOCGIFFLAGS, &ifr);
  if (rc == 0) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    rc = ::ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  int e = errno;
  ::close(s);
  return rc == 0 ? std::string() : step_error("network", "bring up lo", e);
}

int enter_unit_netns(int unit_fd) {
  int own = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (own < 0) return -1;
  if (::setns(unit_fd, CLONE_NEWNET) != 0) {
    ::close(own);
    return -1;
  }
  return own;
}

void leave_unit_netns(int own_fd) {
  if (own_fd < 0) return;
  (void)::setns(own_fd, CLONE_NEWNET);
  ::close(own_fd);
}

}  // namespace sandbox

Result<UnitNetns> UnitNetns::create() {
  // A helper process makes the namespace so that ours never changes; we keep an fd to it.
  int pipefd[2];  // a socketpair: the child writes its answer, then waits to read our EOF
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pipefd) != 0)
    return fail("socketpair: {}", errno_text(errno));
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipefd[0]);
    char ok = ::unshare(CLONE_NEWNET) == 0 && sandbox::bring_up_loopback().empty() ? 'Y' : 'N';
    (void)!::write(pipefd[1], &ok, 1);
    char wait;
    (void)!::read(pipefd[1], &wait, 1);  // until the parent has opened our namespace
    ::_exit(0);
  }
  ::close(pipefd[1]);
  char ok = 'N';
  int fd = -1;
  if (pid > 0 && ::read(pipefd[0], &ok, 1) == 1 && ok == 'Y')
    fd = ::open(fmt::format("/proc/{}/ns/net", pid).c_str(), O_RDONLY | O_CLOEXEC);
  int e = errno;
  ::close(pipefd[0]);
  if (pid > 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  if (fd < 0)
    return fail("make the unit's network namespace: {} (needs root)",
                ok == 'Y' ? errno_text(e) : "unshare failed");
  return UnitNetns(fd);
}

UnitNetns::~UnitNetns() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace aw
