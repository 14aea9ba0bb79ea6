#include "isolate/sandbox/sandbox_exec.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/fs.h"
#include "base/gcc_quirks.h"
#include "isolate/sandbox/plan_json.h"
#include "isolate/sandbox/sandbox.h"
#include "proc/runner.h"

extern char** environ;

namespace aw {

namespace {

constexpr int kSetupFailed = 126;

struct Args {
  std::string plan_file, cwd;
  std::set<std::string> env_names;
  std::vector<std::string> argv;
};

Result<Args> parse(int argc, char** argv) {
  Args a;
  int i = 2;
  if (i >= argc) return fail("usage: __sandbox-exec PLAN_FILE --cwd DIR --env NAMES -- PROG...");
  a.plan_file = argv[i++];
  for (; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) return fail("{} needs a value", s);
    std::string v = argv[++i];
    if (s == "--cwd") {
      a.cwd = v;
    } else if (s == "--env") {
      for (size_t p = 0; p <= v.size();) {
        size_t q = v.find(',', p);
        if (q == std::string::npos) q = v.size();
        if (q > p) a.env_names.insert(v.substr(p, q - p));
        p = q + 1;
      }
    } else {
      return fail("unknown option {}", s);
    }
  }
  for (; i < argc; ++i) a.argv.emplace_back(argv[i]);
  if (a.argv.empty()) return fail("no program after --");
  return a;
}

// Only the phase's own environment, as the owner built it: sudo adds its SUDO_* variables (and
// sets what the phase did not name), none of which the phase gets.
std::vector<std::string> phase_env(const std::set<std::string>& names) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    if (names.count(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  return env;
}

// A hidden path the worker cannot even look up is hidden from it by the host's permissions
// already (the view binds the host's inodes, and the worker has no capability over them inside);
// the view builder, which runs as the worker, could not mask it either. The same for a missing
// path whose nearest existing folder the worker cannot list (it cannot create the path there).
bool worker_cannot_reach(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return false;
  if (errno == EACCES) return true;
  if (errno != ENOENT && errno != ENOTDIR) return false;
  std::string dir = path;
  while (dir.size() > 1) {
    dir = dir.substr(0, dir.rfind('/'));
    AW_NO_WRESTRICT(if (dir.empty()) dir = "/";)  // base/gcc_quirks.h
    if (::lstat(dir.c_str(), &st) == 0) return ::access(dir.c_str(), R_OK | X_OK) != 0;
    if (errno == EACCES) return true;
  }
  return false;
}

}  // namespace

std::optional<int> sandbox_exec_main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "__sandbox-exec") != 0) return std::nullopt;
  auto say = [](const std::string& m) {
    fmt::print(stderr, "awaywork __sandbox-exec: {}\n", m);
    return kSetupFailed;
  };
  auto args = parse(argc, argv);
  if (!args) return say(args.error().message);
  auto text = read_file(args->plan_file, 1 << 20);
  if (!text) return say(text.error().message);
  auto plan = plan_from_json(*text);
  if (!plan) return say(plan.error().message);
  plan->apply_limits = false;  // applied by the owner's warden before sudo (isolate/user/warden.h)
  plan->unit_netns_fd = -1;
  std::erase_if(plan->hidden, worker_cannot_reach);
  // The same for what the owner's plan lends or masks (a toolchain in the owner's closed home,
  // a root-only file in a folder the worker cannot enter): the worker could not bind it, and its
  // own permissions keep it out already.
  std::erase_if(plan->root_only, worker_cannot_reach);
  std::erase_if(plan->readable, [](const SandboxPlan::ReadOnly& r) {
    return ::access(r.source.c_str(), R_OK) != 0;
  });

  ExecRequest req;
  req.argv = args->argv;
  req.env = phase_env(args->env_names);
  req.cwd = args->cwd;
  req.stdin_fd = 0, req.stdout_fd = 1, req.stderr_fd = 2;
  // The runner's contract for a launcher: the end signals blocked while it starts the init
  // (which resets its mask); then they are waited for here and passed on.
  sigset_t watched;
  sigemptyset(&watched);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&watched, s);
  ::sigprocmask(SIG_BLOCK, &watched, nullptr);
  auto pid = make_sandbox_launcher(*plan)(req);
  if (!pid) return say(pid.error().message);
  for (;;) {
    int status = 0;
    pid_t w = ::waitpid(*pid, &status, WNOHANG);
    if (w == *pid) exit_like(status);
    if (w < 0 && errno != EINTR) return say(fmt::format("wait: {}", errno_text(errno)));
    siginfo_t si;
    struct timespec tick {
      1, 0
    };
    int sig = ::sigtimedwait(&watched, &si, &tick);
    if (sig > 0 && sig != SIGCHLD) ::kill(*pid, sig);
  }
}

}  // namespace aw
