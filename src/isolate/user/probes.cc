#include "isolate/user/probes.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "base/argv.h"
#include "base/fs.h"
#include "proc/capture.h"

namespace aw {

namespace {

const std::vector<std::string> kProbeEnv = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C"};

WorkerProbeResult ok(std::string name, std::string why) {
  return {std::move(name), false, std::move(why)};
}
WorkerProbeResult leak(std::string name, std::string what) {
  return {std::move(name), true, std::move(what)};
}

// Reads at most a few bytes: proving access is enough, and nothing secret is kept.
ssize_t try_read(const std::string& path, int& err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    err = errno;
    return -1;
  }
  char buf[16];
  ssize_t n = ::read(fd, buf, sizeof buf);
  err = n < 0 ? errno : 0;
  ::close(fd);
  return n;
}

WorkerProbeResult file_probe(const std::string& name, const std::string& path) {
  if (path.empty()) return ok(name, "no path given");
  int err = 0;
  ssize_t n = try_read(path, err);
  if (n >= 0) return leak(name, "read " + path);
  return ok(name, path + ": " + std::strerror(err));
}

WorkerProbeResult home_probe(const std::string& home) {
  if (home.empty()) return ok("owner-home", "no path given");
  DIR* d = ::opendir(home.c_str());
  if (d) {
    int entries = 0;
    while (::readdir(d)) ++entries;
    ::closedir(d);
    return leak("owner-home", fmt::format("listed {} ({} entries)", home, entries));
  }
  int e = errno;
  // Search without listing: the worker must not reach known names either.
  struct stat st {};
  std::string probe = home + "/.profile";
  if (::stat(probe.c_str(), &st) == 0) return leak("owner-home", "reached " + probe);
  return ok("owner-home", home + ": " + std::strerror(e));
}

WorkerProbeResult environ_probe(pid_t pid) {
  if (pid <= 0) return ok("awaywork-environ", "no pid given");
  std::string path = fmt::format("/proc/{}/environ", pid);
  int err = 0;
  ssize_t n = try_read(path, err);
  if (n > 0) return leak("awaywork-environ", "read " + path);
  return ok("awaywork-environ", path + ": " + (n == 0 ? "empty" : std::strerror(err)));
}

WorkerProbeResult any_environ_probe() {
  DIR* d = ::opendir("/proc");
  if (!d) return ok("any-environ", "no /proc");
  // Processes of the probe's own session are its own phase; anything else readable is a leak
  // (the owner's, another user's, or another unit's running as the same worker).
  pid_t my_session = ::getsid(0);
  std::string reached;
  int count = 0;
  while (struct dirent* e = ::readdir(d)) {
    std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st {};
    pid_t p = static_cast<pid_t>(std::atoi(pid.c_str()));
    if (::stat(("/proc/" + pid).c_str(), &st) != 0 || ::getsid(p) == my_session) continue;
    int err = 0;
    if (try_read("/proc/" + pid + "/environ", err) > 0) {
      ++count;
      if (reached.empty()) reached = fmt::format("/proc/{}/environ (uid {})", pid, st.st_uid);
    }
  }
  ::closedir(d);
  if (count) return leak("any-environ", fmt::format("read {} and {} more", reached, count - 1));
  return ok("any-environ", "no other user's environ readable");
}

WorkerProbeResult ssh_agent_probe(const std::string& pattern) {
  glob_t g{};
  int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  std::string reached;
  size_t seen = rc == 0 ? g.gl_pathc : 0;
  for (size_t i = 0; i < seen && reached.empty(); ++i) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, g.gl_pathv[i], sizeof addr.sun_path - 1);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0)
      reached = g.gl_pathv[i];
    if (fd >= 0) ::close(fd);
  }
  ::globfree(&g);
  if (!reached.empty()) return leak("ssh-agent", "connected to " + reached);
  return ok("ssh-agent", fmt::format("{} socket(s) visible, none connectable", seen));
}

WorkerProbeResult command_probe(const std::string& name, std::vector<std::string> argv,
                                bool (*leaked)(const Captured&)) {
  auto c = capture({std::move(argv), kProbeEnv, "/", ""});
  if (!c) return ok(name, c.error().message);
  std::string said = c->err.empty() ? c->out : c->err;
  while (!said.empty() && said.back() == '\n') said.pop_back();
  if (leaked(*c)) return leak(name, fmt::format("exit {}: {}", c->exit_code, said));
  return ok(name, fmt::format("exit {}: {}", c->exit_code, said));
}

}  // namespace

std::vector<WorkerProbeResult> run_worker_probes(const WorkerProbeTargets& t) {
  std::vector<WorkerProbeResult> out;
  out.push_back(file_probe("env-file", t.env_file));
  out.push_back(home_probe(t.owner_home));
  out.push_back(environ_probe(t.awaywork_pid));
  out.push_back(any_environ_probe());
  out.push_back(file_probe("gh-hosts", t.gh_hosts));
  out.push_back(ssh_agent_probe(t.ssh_glob));
  out.push_back(command_probe("sudo", {"/usr/bin/sudo", "-n", "true"},
                              [](const Captured& c) { return c.exit_code == 0; }));
  if (::access("/usr/bin/crontab", X_OK) != 0) {
    out.push_back(ok("crontab", "crontab is not installed"));
  } else {
    // Listing is enough to tell: cron.deny refuses the program itself ("not allowed"), and in the
    // sandbox's view the spool is not there at all; an allowed user lists a crontab or is told
    // it has none.
    out.push_back(command_probe("crontab", {"/usr/bin/crontab", "-l"}, [](const Captured& c) {
      return c.exit_code == 0 || c.err.find("no crontab for") != std::string::npos;
    }));
  }
  return out;
}

pid_t start_detached_sleep(const std::string& seconds) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  CStrings argv({"sleep", seconds}), envp;
  pid_t mid = ::fork();
  if (mid == 0) {
    ::setsid();
    pid_t s = ::fork();
    if (s == 0) {
      int null = ::open("/dev/null", O_RDWR);
      for (int i = 0; i < 3; ++i) ::dup2(null, i);
      ::execve("/bin/sleep", argv.get(), envp.get());
      _exit(127);
    }
    (void)!::write(fds[1], &s, sizeof s);
    _exit(0);
  }
  ::close(fds[1]);
  pid_t s = -1;
  if (mid > 0) {
    if (::read(fds[0], &s, sizeof s) != sizeof s) s = -1;
    ::waitpid(mid, nullptr, 0);
  }
  ::close(fds[0]);
  return s;
}

WorkerProbeResult check_left_behind(pid_t pid) {
  if (pid <= 0) return ok("leftover-sleep", "no sleep was started");
  auto status = read_file(fmt::format("/proc/{}/status", pid), 1 << 16);
  if (!status) return ok("leftover-sleep", fmt::format("pid {} is gone", pid));
  bool zombie = status->find("State:\tZ") != std::string::npos;
  bool sleep = status->find("Name:\tsleep") != std::string::npos;
  if (sleep && !zombie)
    return leak("leftover-sleep", fmt::format("sleep {} survived the phase", pid));
  return ok("leftover-sleep", fmt::format("pid {} is gone", pid));
}

WorkerProbeResult check_left_behind(const std::string& seconds) {
  DIR* d = ::opendir("/proc");
  if (!d) return leak("leftover-sleep", "no /proc to look in");
  std::string found;
  while (struct dirent* e = ::readdir(d)) {
    std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    auto cmd = read_file("/proc/" + pid + "/cmdline", 1 << 16);
    if (!cmd || cmd->find(std::string("sleep") + '\0' + seconds) == std::string::npos) continue;
    auto status = read_file("/proc/" + pid + "/status", 1 << 16);
    if (status && status->find("State:\tZ") == std::string::npos) found = pid;
  }
  ::closedir(d);
  if (!found.empty())
    return leak("leftover-sleep",
                fmt::format("sleep {} (pid {}) survived the phase", seconds, found));
  return ok("leftover-sleep", fmt::format("no sleep {} left", seconds));
}

std::string format_worker_targets(const WorkerProbeTargets& t) {
  return fmt::format(
      "env_file\t{}\nowner_home\t{}\nawaywork_pid\t{}\ngh_hosts\t{}\nssh_glob\t{}\n"
      "sleep_seconds\t{}\n",
      t.env_file, t.owner_home, t.awaywork_pid, t.gh_hosts, t.ssh_glob, t.sleep_seconds);
}

WorkerProbeTargets parse_worker_targets(const std::string& text) {
  WorkerProbeTargets t;
  size_t a = 0;
  while (a < text.size()) {
    size_t b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    std::string line = text.substr(a, b - a);
    a = b + 1;
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    std::string k = line.substr(0, tab), v = line.substr(tab + 1);
    if (k == "env_file")
      t.env_file = v;
    else if (k == "owner_home")
      t.owner_home = v;
    else if (k == "awaywork_pid")
      t.awaywork_pid = static_cast<pid_t>(std::atoi(v.c_str()));
    else if (k == "gh_hosts")
      t.gh_hosts = v;
    else if (k == "ssh_glob")
      t.ssh_glob = v;
    else if (k == "sleep_seconds")
      t.sleep_seconds = v;
  }
  return t;
}

std::string render_probes(const std::vector<WorkerProbeResult>& results) {
  std::string out;
  for (const auto& r : results)
    out += r.leak ? fmt::format("LEAK {}: {}\n", r.name, r.what) : fmt::format("ok {}\n", r.name);
  return out;
}

}  // namespace aw
