#include "proc/capture.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "base/argv.h"
#include "base/fs.h"

namespace aw {

namespace {

struct Pipe {
  int r = -1, w = -1;
  ~Pipe() { reset(); }
  void reset() {
    if (r >= 0) ::close(r);
    if (w >= 0) ::close(w);
    r = w = -1;
  }
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    r = fds[0];
    w = fds[1];
    return true;
  }
};

std::string path_of(const std::vector<std::string>& env) {
  for (const auto& kv : env)
    if (kv.rfind("PATH=", 0) == 0) return kv.substr(5);
  return "/usr/local/bin:/usr/bin:/bin";
}

// Feed stdin and drain stdout/stderr together so that neither side can block the other.
void pump(Pipe& in, Pipe& out, Pipe& err, const std::string& data, Captured& c) {
  size_t off = 0;
  if (data.empty()) in.reset();
  char buf[65536];
  while (out.r >= 0 || err.r >= 0 || in.w >= 0) {
    pollfd p[3];
    int n = 0;
    int idx_out = -1, idx_err = -1, idx_in = -1;
    if (out.r >= 0) {
      p[n] = {out.r, POLLIN, 0};
      idx_out = n++;
    }
    if (err.r >= 0) {
      p[n] = {err.r, POLLIN, 0};
      idx_err = n++;
    }
    if (in.w >= 0) {
      p[n] = {in.w, POLLOUT, 0};
      idx_in = n++;
    }
    if (::poll(p, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, Pipe& pp, std::string& dst) {
      if (idx < 0 || !(p[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t k = ::read(pp.r, buf, sizeof buf);
      if (k > 0)
        dst.append(buf, static_cast<size_t>(k));
      else if (k == 0 || errno != EINTR) {
        ::close(pp.r);
        pp.r = -1;
      }
    };
    drain(idx_out, out, c.out);
    drain(idx_err, err, c.err);
    if (idx_in >= 0 && (p[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t k = ::write(in.w, data.data() + off, data.size() - off);
      if (k > 0) off += static_cast<size_t>(k);
      if (k < 0 && errno != EINTR && errno != EAGAIN) off = data.size();
      if (off >= data.size()) {
        ::close(in.w);
        in.w = -1;
      }
    }
  }
}

}  // namespace

Result<std::string> find_program(const std::string& name, const std::string& path_value) {
  if (name.find('/') != std::string::npos) return name;
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t end = path_value.find(':', start);
    if (end == std::string::npos) end = path_value.size();
    std::string dir = path_value.substr(start, end - start);
    if (!dir.empty()) {
      std::string cand = dir + "/" + name;
      struct stat st {};
      if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          ::access(cand.c_str(), X_OK) == 0)
        return cand;
    }
    start = end + 1;
  }
  return fail("'{}' not found in PATH ({})", name, path_value);
}

Result<Captured> capture(const CaptureSpec& spec) {
  if (spec.argv.empty()) return fail("capture: empty argv");
  AW_TRY(std::string prog, find_program(spec.argv[0], path_of(spec.env)));
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) return fail("pipe: {}", errno_text(errno));
  ::fcntl(in.w, F_SETFL, O_NONBLOCK);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in.r, 0);
  posix_spawn_file_actions_adddup2(&fa, out.w, 1);
  posix_spawn_file_actions_adddup2(&fa, err.w, 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&at, &none);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&at, &all);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  CStrings argv(spec.argv), envp(spec.env);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, prog.c_str(), &fa, &at, argv.get(), envp.get());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc != 0) return fail("start {}: {}", prog, errno_text(rc));
  ::close(in.r), in.r = -1;
  ::close(out.w), out.w = -1;
  ::close(err.w), err.w = -1;
  Captured c;
  pump(in, out, err, spec.stdin_data, c);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return c;
}

}  // namespace aw
