#include "watch/child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "record/store.h"

namespace aw {

Result<UnitChild> UnitChild::spawn(const std::vector<std::string>& argv, const std::string& log) {
  int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (out < 0) return fail("unit log {}: {}", log, std::strerror(errno));
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(out);
    ::close(devnull);
    return fail("start a unit: fork: {}", std::strerror(e));
  }
  if (pid == 0) {
    // Only system calls from here to exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // watch died before the prctl took hold
    ::dup2(devnull, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(devnull);
  return UnitChild(pid, process_start_time(pid), false);
}

UnitChild UnitChild::adopt(pid_t pid, std::string start_time) {
  return UnitChild(pid, std::move(start_time), true);
}

void UnitChild::terminate() {
  if (status_ || pid_ <= 0) return;
  if (adopted_ && process_start_time(pid_) != start_) return;  // gone; the pid may be another's
  ::kill(pid_, SIGTERM);
}

std::optional<int> UnitChild::reap() {
  if (status_) return status_;
  if (adopted_) {
    if (process_start_time(pid_) != start_) status_ = -1;
    return status_;
  }
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  if (r < 0 && errno == ECHILD) status_ = -1;
  return status_;
}

}  // namespace aw
