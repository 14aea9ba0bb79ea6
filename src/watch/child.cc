#include "watch/child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/unique_fd.h"
#include "proc/tied_child.h"
#include "record/store.h"

namespace aw {

Result<UnitChild> UnitChild::spawn(const std::vector<std::string>& argv, const std::string& log) {
  UniqueFd out(::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!out) return fail("unit log {}: {}", log, std::strerror(errno));
  AW_TRY(pid_t pid, with_context(spawn_tied_child(argv, out.fd), "start a unit"));
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
