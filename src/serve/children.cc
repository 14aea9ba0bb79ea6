#include "serve/children.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "base/fs.h"
#include "base/unique_fd.h"
#include "proc/tied_child.h"

namespace aw {

Result<pid_t> Children::spawn(const std::vector<std::string>& argv) {
  AW_CHECK(make_dirs(scratch_, 0700));
  static_assert(sizeof(pid_t) <= sizeof(long));
  std::string out_path;
  int out = -1;
  for (int i = 0; out < 0 && i < 100; ++i) {
    out_path = fmt::format("{}/child-{}-{}.log", scratch_, ::getpid(),
                           std::chrono::steady_clock::now().time_since_epoch().count() + i);
    out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  if (out < 0) return fail("create {}: {}", out_path, errno_text(errno));
  UniqueFd out_fd(out);
  std::lock_guard lock(mu_);  // reap() must not see the pid before it is in kids_
  if (stopping_) {
    ::unlink(out_path.c_str());
    return fail("awaywork serve is stopping (SIGINT/SIGTERM); no unit is started now");
  }
  auto pid = spawn_tied_child(argv, out_fd.fd);
  if (!pid) {
    ::unlink(out_path.c_str());
    return pid;
  }
  kids_[*pid] = Child{out_path, std::nullopt};
  return pid;
}

void Children::reap() {
  std::lock_guard lock(mu_);
  for (auto& [pid, c] : kids_) {
    if (c.status) continue;
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) c.status = st;
  }
  std::erase_if(kids_, [](const auto& kv) { return kv.second.released && kv.second.status; });
}

std::optional<int> Children::status(pid_t pid) {
  reap();
  std::lock_guard lock(mu_);
  auto it = kids_.find(pid);
  return it == kids_.end() ? std::nullopt : it->second.status;
}

std::string Children::output(pid_t pid) {
  std::string path;
  {
    std::lock_guard lock(mu_);
    auto it = kids_.find(pid);
    if (it == kids_.end()) return "";
    path = it->second.out_path;
  }
  auto text = read_file(path, 1 << 20);
  return text ? *text : "";
}

void Children::release(pid_t pid) {
  std::lock_guard lock(mu_);
  auto it = kids_.find(pid);
  if (it == kids_.end()) return;
  ::unlink(it->second.out_path.c_str());
  if (it->second.status)
    kids_.erase(it);
  else
    it->second.released = true;
}

void Children::terminate_all(int grace_ms) {
  // Each is signalled and killed under the lock, while it is known unreaped: its pid is then
  // surely still its own, not a reused one.
  std::vector<pid_t> running;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [pid, c] : kids_) {
      if (c.status) continue;
      int st = 0;
      if (::waitpid(pid, &st, WNOHANG) == pid) {
        c.status = st;
        continue;
      }
      ::kill(pid, SIGTERM);
      running.push_back(pid);
    }
  }
  // Ended: reaped here or by reap() (which forgets a released child once reaped, so a pid no
  // longer in kids_ has ended too).
  auto ended = [this](pid_t pid) {
    std::lock_guard lock(mu_);
    auto it = kids_.find(pid);
    if (it == kids_.end() || it->second.status) return true;
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) != pid) return false;
    it->second.status = st;
    return true;
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  for (pid_t pid : running) {
    while (!ended(pid) && !hurry_ && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard lock(mu_);
    auto it = kids_.find(pid);
    if (it == kids_.end() || it->second.status) continue;
    // Past the grace: the run's own group too (it is the leader, spawn() made it so).
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    int st = 0;
    if (::waitpid(pid, &st, 0) == pid) it->second.status = st;
  }
  std::lock_guard lock(mu_);
  for (auto& [pid, c] : kids_) ::unlink(c.out_path.c_str());
}

}  // namespace aw
