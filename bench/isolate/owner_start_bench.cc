// owner_start_bench [RUNS] [USER]: a sandboxed phase's start-to-exit (/bin/true through the
// runner: keeper, phase cgroup, sandbox launcher, network none), median in one run, for
//   root   awaywork's groups at the root of the cgroup v2 tree, limits from its own groups
//          (cgroup v2 where it has the controllers, else cgroup v1);
//   owner  an ordinary user (USER, default nobody) in a cgroup v2 group delegated to them the way
//          systemd delegates user@UID.service (chowned, user.delegate=1): awaywork moves itself
//          into its awaywork.self leaf and makes the phases' groups beside it; limits from it
//          where it offers the controllers, else `limits: off` (RLIMIT_NPROC still caps pids);
// and the ratio owner/root. Rounds alternate between the two processes so that load on the machine
// spreads over both. Run as root (it makes the delegated group, then drops to USER).
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/fs.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/view.h"
#include "proc/cgroup.h"
#include "proc/runner.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRound = 10;  // phases per turn before the other side runs

struct Side {
  aw::SandboxPlan plan;
  std::string dir;
  std::string containment;
  std::vector<double> ms;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One phase through the runner, as a unit's would go.
bool once(Side& s) {
  aw::PhaseSpec spec;
  spec.name = "bench";
  spec.argv = {"/bin/true"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.cwd = s.dir;
  spec.launcher = aw::make_sandbox_launcher(s.plan);
  auto a = Clock::now();
  auto r = aw::run_phase(spec);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - a).count();
  if (!r || r->end != aw::PhaseEnd::exited || r->exit_code != 0) {
    std::fprintf(stderr, "phase failed: %s\n",
                 r ? (r->start_error.empty() ? aw::describe(*r) : r->start_error).c_str()
                   : r.error().message.c_str());
    return false;
  }
  s.containment = r->containment;
  s.ms.push_back(ms);
  return true;
}

// The side's plan and folder; where its limits come from decides apply_limits.
bool prepare(Side& s) {
  char tmpl[] = "/var/tmp/aw-owner-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return false;
  s.dir = tmpl;
  s.plan.writable = {s.dir};
  s.plan.root_only = aw::sandbox::root_only_files(::geteuid() == 0);
  s.plan.cgroup_name = "owner-bench-" + std::to_string(::getpid());
  auto roots = aw::find_cgroup_roots(aw::CgroupMode::automatic);
  s.plan.apply_limits = ::geteuid() == 0 || !aw::v2_limit_controllers(roots).empty();
  return true;
}

// Made by root for uid:gid as systemd makes user@UID.service: the folder and the files a
// delegate writes are theirs, and the xattr says so.
std::string delegate_group(uid_t uid, gid_t gid) {
  std::string mount = ::access("/sys/fs/cgroup/cgroup.procs", F_OK) == 0 &&
                              ::access("/sys/fs/cgroup/memory", F_OK) != 0
                          ? "/sys/fs/cgroup"
                          : "/sys/fs/cgroup/unified";
  std::string g = mount + "/aw-owner-bench-" + std::to_string(::getpid());
  if (::mkdir(g.c_str(), 0755) != 0) return "";
  for (const char* f : {"", "/cgroup.procs", "/cgroup.subtree_control", "/cgroup.threads"})
    if (::chown((g + f).c_str(), uid, gid) != 0) return "";
  if (::setxattr(g.c_str(), "user.delegate", "1", 1, 0) != 0) return "";
  return g;
}

// Runs kRound phases each time a byte comes on go, answers on done; at the end (go closed) writes
// its medians' samples to done. Exits non-zero on failure.
[[noreturn]] void owner_side(const passwd& pw, const std::string& group, int go, int done) {
  std::string procs = group + "/cgroup.procs", me = std::to_string(::getpid());
  int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::write(fd, me.data(), me.size()) != static_cast<ssize_t>(me.size())) ::_exit(2);
  ::close(fd);
  if (::setgroups(0, nullptr) != 0 || ::setgid(pw.pw_gid) != 0 || ::setuid(pw.pw_uid) != 0)
    ::_exit(3);
  Side s;
  if (!prepare(s)) ::_exit(4);
  char c;
  while (::read(go, &c, 1) == 1) {
    for (int i = 0; i < kRound; ++i)
      if (!once(s)) ::_exit(5);
    if (::write(done, "k", 1) != 1) ::_exit(6);
  }
  std::string line = s.containment + "\n" + (s.plan.apply_limits ? "limits\n" : "limits off\n");
  for (double v : s.ms) line += std::to_string(v) + "\n";
  (void)!::write(done, line.data(), line.size());
  (void)aw::remove_tree(s.dir);
  ::_exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 100;
  const char* user = argc > 2 ? argv[2] : "nobody";
  if (::geteuid() != 0) {
    std::fprintf(stderr, "owner_start_bench: run as root (it delegates a group to %s)\n", user);
    return 2;
  }
  passwd* pw = ::getpwnam(user);
  if (!pw) return std::fprintf(stderr, "owner_start_bench: no user %s\n", user), 2;
  std::string group = delegate_group(pw->pw_uid, pw->pw_gid);
  if (group.empty()) return std::perror("owner_start_bench: delegate a cgroup v2 group"), 1;
  int go[2], done[2];
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(done, O_CLOEXEC) != 0) return 1;
  pid_t owner = ::fork();
  if (owner == 0) {
    ::close(go[1]);
    ::close(done[0]);
    owner_side(*pw, group, go[0], done[1]);
  }
  ::close(go[0]);
  ::close(done[1]);
  Side root;
  if (!prepare(root)) return 1;
  bool ok = true;
  for (int done_runs = 0; ok && done_runs < runs; done_runs += kRound) {
    for (int i = 0; ok && i < kRound; ++i) ok = once(root);
    char c;
    ok = ok && ::write(go[1], "g", 1) == 1 && ::read(done[0], &c, 1) == 1;
  }
  ::close(go[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(done[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  int st = 0;
  ::waitpid(owner, &st, 0);
  (void)aw::sweep_sandbox_cgroups();
  (void)aw::remove_tree(root.dir);
  ::rmdir((group + "/awaywork.self").c_str());
  ::rmdir((group + "/awaywork").c_str());
  ::rmdir(group.c_str());
  if (!ok || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    std::fprintf(stderr, "owner_start_bench: failed (owner side status %d)\n", st);
    return 1;
  }
  Side o;
  size_t a = text.find('\n'), b = text.find('\n', a + 1);
  o.containment = text.substr(0, a);
  std::string limits = text.substr(a + 1, b - a - 1);
  for (size_t at = b + 1; at < text.size();) {
    size_t nl = text.find('\n', at);
    o.ms.push_back(std::atof(text.substr(at, nl - at).c_str()));
    at = nl + 1;
  }
  double r = median(root.ms), w = median(o.ms);
  std::printf("phases per side: %zu root, %zu owner, alternating in rounds of %d (medians)\n",
              root.ms.size(), o.ms.size(), kRound);
  std::printf("root                 %7.3f ms   %s, limits\n", r, root.containment.c_str());
  std::printf("owner                %7.3f ms   %s, %s (user %s)\n", w, o.containment.c_str(),
              limits.c_str(), user);
  std::printf("owner/root           %7.2fx\n", w / r);
  return 0;
}
