#include "isolate/probe/probe_user.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/argv.h"
#include "base/fs.h"
#include "base/json_write.h"
#include "config/paths.h"
#include "isolate/probe/probe_host.h"
#include "isolate/probe/probes.h"
#include "isolate/user/isolator_user.h"
#include "isolate/user/probes.h"

namespace aw {

namespace {

// A fresh copy, mode 755, never through a link.
Status copy_program(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return fail("open {}: {}", from, errno_text(errno));
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
  if (out < 0) {
    int e = errno;
    ::close(in);
    return fail("create {}: {}", to, errno_text(e));
  }
  struct stat st {};
  Status result;
  if (::fstat(in, &st) != 0) result = fail("stat {}: {}", from, errno_text(errno));
  for (off_t off = 0; result && off < st.st_size;) {
    ssize_t n = ::sendfile(out, in, &off, static_cast<size_t>(st.st_size - off));
    if (n <= 0) result = fail("copy {} to {}: {}", from, to, errno_text(errno));
  }
  if (result && ::fchmod(out, 0755) != 0) result = fail("chmod {}: {}", to, errno_text(errno));
  ::close(in);
  ::close(out);
  return result;
}

// What the probes aim at, planted for the run and removed after. Nothing of the owner's is
// changed: a file that exists is probed as it is; one that does not is planted with a fake
// value, together with the folders made for it.
class Canaries {
 public:
  Canaries() = default;
  Canaries(const Canaries&) = delete;
  Canaries& operator=(const Canaries&) = delete;
  ~Canaries() {
    if (marker_ > 0) {
      ::kill(marker_, SIGKILL);
      ::waitpid(marker_, nullptr, 0);
    }
    if (ssh_fd_ >= 0) ::close(ssh_fd_);
    for (auto it = made_.rbegin(); it != made_.rend(); ++it)
      (void)(::unlink(it->c_str()) == 0 || ::rmdir(it->c_str()) == 0);
  }

  Status plant(WorkerProbeTargets& t) {
    t.owner_home = home_dir();
    t.env_file = default_config_dir() + "/env";
    t.gh_hosts = t.owner_home + "/.config/gh/hosts.yml";
    AW_CHECK(plant_file(t.env_file, "ANTHROPIC_API_KEY=sk-ant-api03-AWAYWORKPROBECANARY0000000\n"));
    AW_CHECK(plant_file(t.gh_hosts,
                        "github.com:\n    oauth_token: gho_AWAYWORKPROBECANARY000000000000000\n"));
    AW_CHECK(plant_ssh_socket(t));
    AW_CHECK(start_marker());
    t.awaywork_pid = ::getpid();
    t.sleep_seconds = fmt::format("3600.{}{:09}", ::getpid(), ::time(nullptr) % 1000000000);
    return {};
  }

 private:
  Status plant_file(const std::string& path, const std::string& content) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) return {};
    std::vector<std::string> missing;
    for (std::string d = path.substr(0, path.rfind('/'));
         !d.empty() && ::lstat(d.c_str(), &st) != 0; d = d.substr(0, d.rfind('/')))
      missing.insert(missing.begin(), d);
    for (const auto& d : missing) {
      if (::mkdir(d.c_str(), 0700) != 0) return fail("create {}: {}", d, errno_text(errno));
      made_.push_back(d);
    }
    AW_CHECK(write_file(path, content, 0600));
    made_.push_back(path);
    return {};
  }

  // An ssh-agent-like socket where agents put theirs: /tmp/ssh-XXXXXX/agent.PID, the owner's.
  Status plant_ssh_socket(WorkerProbeTargets& t) {
    char dir[] = "/tmp/ssh-XXXXXX";
    if (!::mkdtemp(dir)) return fail("mkdtemp /tmp/ssh-XXXXXX: {}", errno_text(errno));
    made_.push_back(dir);
    std::string sock = fmt::format("{}/agent.{}", dir, ::getpid());
    ssh_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
    if (ssh_fd_ < 0 || ::bind(ssh_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(ssh_fd_, 8) != 0)
      return fail("listen on {}: {}", sock, errno_text(errno));
    made_.push_back(sock);
    t.ssh_glob = std::string(dir) + "/agent.*";
    return {};
  }

  // An owner process whose environment holds a fake token: any-environ must not read it.
  Status start_marker() {
    CStrings argv({"sleep", "3600"}),
        envp({"GITHUB_TOKEN=ghp_AWAYWORKPROBECANARY000000000000000000"});
    marker_ = ::fork();
    if (marker_ < 0) return fail("fork: {}", errno_text(errno));
    if (marker_ == 0) {
      int null = ::open("/dev/null", O_RDWR);
      for (int i = 0; i < 3; ++i) ::dup2(null, i);
      ::execve("/bin/sleep", argv.get(), envp.get());
      _exit(127);
    }
    return {};
  }

  std::vector<std::string> made_;  // files and folders planted, in order
  int ssh_fd_ = -1;
  pid_t marker_ = -1;
};

nlohmann::json entry(const std::string& name, bool ok, const std::string& detail) {
  return {{"name", name}, {"ok", ok}, {"detail", detail}};
}

}  // namespace

ProbeOutcome probe_user(const Config& cfg) {
  Canaries canaries;
  WorkerProbeTargets wt;
  if (auto ok = canaries.plant(wt); !ok) return {{}, tl::make_unexpected(ok.error())};
  std::unique_ptr<ProbeHost> host;
  std::vector<std::string> warnings;  // doctor's failures the probe runs in spite of
  IsolatedCommand cmd;
  cmd.isolator = [&](const std::string& id) {
    return make_user_isolator_for_probe(cfg, id, &warnings);
  };
  cmd.argv = {"{tmp}/awaywork-probe", "__probe-worker", "{tmp}/probe-worker-targets",
              "{tmp}/probe-targets"};
  cmd.prepare = [&](const UnitPaths& paths, const SandboxPlan& plan,
                    const std::string& note) -> Status {
    AW_CHECK(copy_program(self_exe(), paths.tmp + "/awaywork-probe"));
    AW_CHECK(write_file(paths.tmp + "/probe-worker-targets", format_worker_targets(wt), 0600));
    if (note.rfind("sandboxed:", 0) != 0) return {};
    // The sandbox's own suite too: network, hidden paths, syscalls, limits.
    ProbeHostOptions o;
    o.owner_home = wt.owner_home;
    o.env_file = wt.env_file;
    o.database = state_dir_of(cfg) + "/awaywork.db";
    AW_TRY(host, ProbeHost::start(plan, o));
    ProbeTargets t = host->targets();
    t.sudo = false;  // the worker's own probe says it
    return write_file(paths.tmp + "/probe-targets", format_probe_targets(t), 0600);
  };
  auto r = run_isolated(cfg, cmd);
  host.reset();
  // The left-behind check comes after the phase's kill (run_isolated ran after_phase).
  auto report =
      read_probe_report(fmt::format("isolation user (worker {})", cfg.worker_user),
                        {{"isolation", "user"}, {"doctor", warnings}, {"worker", cfg.worker_user}},
                        r, [&](nlohmann::json& results) {
                          WorkerProbeResult left = check_left_behind(wt.sleep_seconds);
                          results.push_back(entry(left.name, !left.leak, left.what));
                        });
  return {std::move(warnings), std::move(report)};
}

namespace {
// The exit codes of cli/commands.h, for a helper that main.cc runs before any of cli/.
enum : int { kDone = 0, kLeaked = 1, kUsage = 2 };
}  // namespace

std::optional<int> probe_worker_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "__probe-worker") != 0) return std::nullopt;
  if (argc < 3) {
    fmt::print(stderr, "usage: awaywork __probe-worker WORKER_TARGETS [SANDBOX_TARGETS]\n");
    return kUsage;
  }
  auto text = read_file(argv[2], 1 << 20);
  if (!text) {
    fmt::print(stderr, "awaywork __probe-worker: {}\n", text.error().message);
    return kUsage;
  }
  WorkerProbeTargets t = parse_worker_targets(*text);
  nlohmann::json out = nlohmann::json::array();
  int leaks = 0;
  for (const auto& r : run_worker_probes(t)) {
    out.push_back(entry(r.name, !r.leak, r.what));
    leaks += r.leak ? 1 : 0;
  }
  // Left running on purpose: the outer side checks that the phase's kill took it.
  (void)start_detached_sleep(t.sleep_seconds);
  if (argc > 3)
    if (auto st = read_file(argv[3], 1 << 20))
      if (auto targets = parse_probe_targets(*st))
        for (const auto& r : run_probe_suite(*targets)) {
          out.push_back(entry(r.name, !r.leaked, r.detail));
          leaks += r.leaked ? 1 : 0;
        }
  // Each detail names what its probe found (a path, an error), which may be any bytes.
  fmt::print("{}\n", json_text(out));
  return leaks == 0 ? kDone : kLeaked;
}

}  // namespace aw
