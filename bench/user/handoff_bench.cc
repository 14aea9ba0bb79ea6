// Figures of isolation `user`: the per-phase handoff round trip (chown -R to the worker, chown -R
// back, lstat identity, chmod walk) on a 100-file and a 100k-file unit folder, in µs per file,
// against the goal of <= 0.5 s for 100k files; and, where the kernel has idmapped mounts, the O(1)
// alternative (an idmapped bind mount of the folder that shows the owner's files as the worker's)
// measured on the same folder in the same run. Next to them, the floor on the same tree: what
// chown -R by root costs without sudo, a bare walk, one sudo start; so that the split says what
// is the kernel's and filesystem's and what is awaywork's own.
//
// Run as root (it creates aw-owner-bench / aw-worker-bench and their sudoers lines, and removes
// them after); the chown round trip itself runs as the owner through sudo, as in production:
//   build/bench/user/user_handoff_bench [RUNS]
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/fs.h"
#include "isolate/user/handoff.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/sudoers.h"

namespace {

using aw::UnitFolder;
using Clock = std::chrono::steady_clock;

constexpr const char* kOwner = "aw-owner-bench";
constexpr const char* kWorker = "aw-worker-bench";

int sh(const std::string& c) {
  return std::system(c.c_str());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// A git-checkout-like tree: files 0644 in folders of 100.
void populate(const std::string& root, int files) {
  for (int i = 0; i < files; ++i) {
    std::string dir = fmt::format("{}/d{}", root, i / 100);
    if (i % 100 == 0) ::mkdir(dir.c_str(), 0755);
    aw::write_file(fmt::format("{}/f{}.txt", dir, i), "x\n", 0644);
  }
}

struct Times {
  double to_worker = 0, back = 0, verify = 0, chmod = 0;
  double sweep = 0;  // the worker's leftovers swept from /tmp, /var/tmp, /dev/shm (per unit)
  double total() const { return to_worker + back + verify + chmod + sweep; }
};

// `runs` round trips as the owner (in a child with the owner's ids) on one folder populated once;
// the first one also closes the checkout's 0644 modes, the later ones find them closed (the
// steady state of a unit's later phases). Times are written to a pipe.
bool round_trips(uid_t ou, gid_t og, const aw::WorkerUser& w, const UnitFolder& folder, int runs,
                 std::vector<Times>& out, const std::string& helper) {
  int fds[2];
  if (::pipe(fds) != 0) return false;
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::setgroups(1, &og) != 0 || ::setresgid(og, og, og) != 0 || ::setresuid(ou, ou, ou) != 0 ||
        ::chdir("/") != 0)
      _exit(2);
    const UnitFolder* f = &folder;
    bool ok = true;
    for (int i = 0; i < runs && ok; ++i) {
      Times r;
      auto t0 = Clock::now();
      ok = aw::hand_to_worker(*f, w).has_value();
      r.to_worker = us_since(t0);
      t0 = Clock::now();
      ok = ok && aw::hand_back(*f, ou, og).has_value();
      r.back = us_since(t0);
      t0 = Clock::now();
      ok = ok && aw::verify_same(*f).has_value();
      r.verify = us_since(t0);
      t0 = Clock::now();
      auto s = aw::close_permissions({*f}, ou);
      r.chmod = us_since(t0);
      if (!s) std::fprintf(stderr, "%s\n", s.error().message.c_str());
      ok = ok && s.has_value();
      // The sweep of the end of a unit, as the worker, then the owner's proof; the unit's folder
      // is not entered.
      t0 = Clock::now();
      auto sw = aw::sweep_worker_leftovers(w, helper, {f->path});
      r.sweep = us_since(t0);
      if (!sw) std::fprintf(stderr, "%s\n", sw.error().message.c_str());
      ok = ok && sw.has_value();
      if (::write(fds[1], &r, sizeof r) != sizeof r) _exit(4);
    }
    _exit(ok ? 0 : 5);
  }
  ::close(fds[1]);
  Times t;
  int got = 0;
  while (::read(fds[0], &t, sizeof t) == sizeof t) out.push_back(t), ++got;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && got == runs;
}

// Run argv (no shell) as uid/gid (root when 0), stdout to /dev/null; microseconds it took.
double timed(const std::vector<std::string>& args, uid_t uid = 0, gid_t gid = 0) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    if (uid != 0 && (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 ||
                     ::setresuid(uid, uid, uid) != 0))
      _exit(2);
    char* envp[] = {const_cast<char*>("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nullptr};
    ::execve(argv[0], argv.data(), envp);
    _exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  double us = us_since(t0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? us : -1;
}

// Every entry lstat'ed through dirfds, nothing changed: the walk the chmod pass cannot avoid.
long walk_only(int dfd) {
  DIR* d = ::fdopendir(::fcntl(dfd, F_DUPFD_CLOEXEC, 0));
  long n = 0;
  while (d)
    if (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
        continue;
      struct stat st {};
      if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      ++n;
      if (S_ISDIR(st.st_mode)) {
        int c = ::openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (c >= 0) n += walk_only(c), ::close(c);
      }
    } else {
      break;
    }
  if (d) ::closedir(d);
  return n;
}

// What the kernel and filesystem cost on the same tree, with nothing of awaywork's: chown -R by
// root without sudo (both directions), a find walk, an in-process lstat walk; and what one sudo
// costs the owner (`sudo -n -u WORKER true`). Sampled between the round trips (the machine's load
// changes), printed next to the round trip's parts.
struct Floor {
  double there = 0, back = 0, find = 0, walk = 0, sudo = 0;
};

Floor floor_once(const UnitFolder& f, uid_t ou, gid_t og, const aw::WorkerUser& w) {
  Floor r;
  std::string chown = aw::chown_path();
  r.there = timed({chown, "-R", "-h", "-P", w.name + ":", f.path});
  r.back = timed({chown, "-R", "-h", "-P", fmt::format("{}:{}", ou, og), f.path});
  r.find = timed({"/usr/bin/find", f.path});
  auto t0 = Clock::now();
  int fd = ::open(f.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  long n = walk_only(fd);
  ::close(fd);
  r.walk = us_since(t0);
  if (n < 100000) std::fprintf(stderr, "walk saw %ld entries\n", n);
  r.sudo = timed({"/usr/bin/sudo", "-n", "-u", w.name, "/bin/true"}, ou, og);
  return r;
}

void print_floor(const std::vector<Floor>& fl, const std::vector<Times>& rt) {
  auto med = [&](double Floor::*m) {
    std::vector<double> v;
    for (const auto& x : fl) v.push_back(x.*m);
    return median(v);
  };
  std::vector<double> kernel, ours, share;
  for (size_t i = 0; i < fl.size() && i < rt.size(); ++i) {
    kernel.push_back(fl[i].there + fl[i].back);
    ours.push_back(rt[i].total() - fl[i].there - fl[i].back);
    share.push_back(100 * (fl[i].there + fl[i].back) / rt[i].total());
  }
  std::vector<double> chmod;
  for (const auto& t : rt) chmod.push_back(t.chmod);
  std::printf(
      "floor, same 100000-file tree, no awaywork: chown -R -h -P by root (no sudo) there %.1f ms, "
      "back %.1f ms (= %.1f ms, %.2f us/file); find walk %.1f ms; in-process lstat walk %.1f ms; "
      "one `sudo -n -u WORKER true` as the owner %.1f ms\n",
      med(&Floor::there) / 1000, med(&Floor::back) / 1000, median(kernel) / 1000,
      median(kernel) / 100000, med(&Floor::find) / 1000, med(&Floor::walk) / 1000,
      med(&Floor::sudo) / 1000);
  std::printf(
      "split of the round trip (per run, each next to its floor): kernel/filesystem chowns %.1f ms "
      "(%.0f%%), awaywork's own %.1f ms (2 sudo starts ~%.1f ms, chmod/verify walk %.1f ms; a "
      "bare lstat walk alone is %.1f ms)\n",
      median(kernel) / 1000, median(share), median(ours) / 1000, 2 * med(&Floor::sudo) / 1000,
      median(chmod) / 1000, med(&Floor::walk) / 1000);
}

// A user namespace mapping owner -> worker (uids and gids), held by a paused child.
int idmap_userns(uid_t ou, gid_t og, uid_t wu, gid_t wg, pid_t& holder) {
  int sync[2];
  if (::pipe(sync) != 0) return -1;
  holder = ::fork();
  if (holder == 0) {
    ::close(sync[1]);
    if (::unshare(CLONE_NEWUSER) != 0) _exit(1);
    char c;
    (void)!::read(sync[0], &c, 1);  // parent wrote the maps and opened the ns; then EOF
    _exit(0);
  }
  ::close(sync[0]);
  ::usleep(0);
  // Wait until the child is in its own user namespace.
  std::string self_ns = fmt::format("/proc/{}/ns/user", ::getpid());
  std::string child_ns = fmt::format("/proc/{}/ns/user", holder);
  for (int i = 0; i < 1000; ++i) {
    struct stat a {
    }, b{};
    if (::stat(self_ns.c_str(), &a) == 0 && ::stat(child_ns.c_str(), &b) == 0 &&
        a.st_ino != b.st_ino)
      break;
    ::usleep(100);
  }
  // Plain writes: these /proc files cannot be replaced, only written.
  auto put = [&](const char* file, const std::string& v) {
    int fd = ::open(fmt::format("/proc/{}/{}", holder, file).c_str(), O_WRONLY | O_CLOEXEC);
    bool ok = fd >= 0 && ::write(fd, v.data(), v.size()) == static_cast<ssize_t>(v.size());
    if (fd >= 0) ::close(fd);
    return ok;
  };
  if (!put("uid_map", fmt::format("{} {} 1\n", ou, wu)) || !put("setgroups", "deny\n") ||
      !put("gid_map", fmt::format("{} {} 1\n", og, wg)))
    return -1;
  int fd = ::open(child_ns.c_str(), O_RDONLY | O_CLOEXEC);
  ::close(sync[1]);
  return fd;
}

// Idmapped bind mount of the folder over itself and its removal; -1 when unsupported.
double idmapped_handoff(const std::string& path, uid_t ou, gid_t og, const aw::WorkerUser& w,
                        std::string& seen) {
  auto t0 = Clock::now();
  pid_t holder = -1;
  int ns = idmap_userns(ou, og, w.uid, w.gid, holder);
  int tree = static_cast<int>(::syscall(SYS_open_tree, AT_FDCWD, path.c_str(),
                                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
  struct mount_attr attr {};
  attr.attr_set = MOUNT_ATTR_IDMAP;
  attr.userns_fd = static_cast<__u64>(ns);
  const char* step = ns < 0 ? "user namespace" : tree < 0 ? "open_tree" : "";
  bool ok = ns >= 0 && tree >= 0;
  if (ok && ::syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                      sizeof attr) != 0) {
    ok = false;
    step = "mount_setattr(MOUNT_ATTR_IDMAP)";
  }
  if (ok &&
      ::syscall(SYS_move_mount, tree, "", AT_FDCWD, path.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0) {
    ok = false;
    step = "move_mount";
  }
  double handed = us_since(t0);
  if (ok) {
    struct stat st {};
    ::stat((path + "/d0/f0.txt").c_str(), &st);
    seen = fmt::format("a file shows uid {} through the mount (worker {})", st.st_uid, w.uid);
  } else {
    seen = fmt::format("{} failed: {}", step, aw::errno_text(errno));
  }
  auto t1 = Clock::now();
  if (ok) ::umount2(path.c_str(), MNT_DETACH);
  double back = us_since(t1);
  if (tree >= 0) ::close(tree);
  if (ns >= 0) ::close(ns);
  ::waitpid(holder, nullptr, 0);
  return ok ? handed + back : -1;
}

}  // namespace

int main(int argc, char** argv) {
  // This binary is also the sweep's worker half (run through sudo as the worker).
  if (auto rc = aw::sweep_worker_main(argc, argv)) return *rc;
  const std::string helper = aw::self_exe();
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (::geteuid() != 0) {
    std::fprintf(stderr, "run as root: it creates the bench users and sudoers lines\n");
    return 1;
  }
  sh(
      fmt::format("userdel -r {0} >/dev/null 2>&1; userdel {1} >/dev/null 2>&1; groupdel {1} "
                  ">/dev/null 2>&1; useradd -m {0} && useradd --system --user-group "
                  "--no-create-home --home-dir /nonexistent/{1} --shell /usr/sbin/nologin {1}",
                  kOwner, kWorker));
  auto w = aw::lookup_worker(kWorker);
  struct passwd* pw = ::getpwnam(kOwner);
  if (!w || !pw) return 1;
  uid_t ou = pw->pw_uid;
  gid_t og = pw->pw_gid;
  auto lines = aw::sudoers_lines({kOwner, ou, og, kWorker});
  aw::write_file("/etc/sudoers.d/aw-user-bench", lines[0] + "\n" + lines[1] + "\n", 0440);
  int rc = 0;
  for (int files : {100, 100000}) {
    // Made by root, populated, then the owner's (as a unit's folder is when a phase starts).
    auto f = aw::make_unit_folder();
    if (!f) return 1;
    populate(f->path, files);
    sh(fmt::format("chown -R {}:{} {}", ou, og, f->path));
    // The first round trip closes the checkout's modes; then each steady one is followed, for
    // the 100k tree, by a floor sample on the same tree.
    std::vector<Times> all;
    std::vector<Floor> fl;
    bool ok = round_trips(ou, og, *w, *f, 1, all, helper);
    for (int i = 0; ok && i < runs; ++i) {
      ok = round_trips(ou, og, *w, *f, 1, all, helper);
      if (ok && files == 100000) fl.push_back(floor_once(*f, ou, og, *w));
    }
    if (!ok) {
      std::fprintf(stderr, "round trip failed\n");
      aw::remove_tree(f->path);
      rc = 1;
      continue;
    }
    const Times first = all.front();
    all.erase(all.begin());
    auto med = [&](double Times::*m) {
      std::vector<double> v;
      for (const auto& t : all) v.push_back(t.*m);
      return median(v);
    };
    std::vector<double> totals;
    for (const auto& t : all) totals.push_back(t.total());
    double total = median(totals);
    std::printf(
        "chown round trip + leftovers sweep, %6d files: median %9.1f ms = %.2f us/file (chown "
        "there %.1f ms, back %.1f ms, lstat %.3f ms, chmod walk %.1f ms, sweep %.1f ms) over %d "
        "runs; first phase (modes 0644 to close) %.1f ms = %.2f us/file%s\n",
        files, total / 1000, total / files, med(&Times::to_worker) / 1000, med(&Times::back) / 1000,
        med(&Times::verify) / 1000, med(&Times::chmod) / 1000, med(&Times::sweep) / 1000, runs,
        first.total() / 1000, first.total() / files,
        files == 100000 ? (total <= 500000 ? "; goal <= 0.5 s: met"
                           : total <= 970000
                               ? "; goal <= 0.5 s: NOT met; bound with the sweep 0.97 s: kept"
                               : "; goal <= 0.5 s: NOT met; bound with the sweep 0.97 s: NOT kept")
                        : "");
    std::fflush(stdout);
    if (files != 100000) {
      aw::remove_tree(f->path);
      continue;
    }
    print_floor(fl, all);
    std::fflush(stdout);
    // The O(1) alternative on the same folder (as root: it needs CAP_SYS_ADMIN in the initial
    // user namespace, i.e. a third privileged rule the issue does not allow: the stretch figure).
    sh(fmt::format("chown -R {}:{} {}", ou, og, f->path));
    std::vector<double> v;
    std::string seen;
    for (int i = 0; i < runs; ++i) {
      double t = idmapped_handoff(f->path, ou, og, *w, seen);
      if (t < 0) break;
      v.push_back(t);
    }
    if (v.empty())
      std::printf("idmapped mount: not available (%s)\n", seen.c_str());
    else
      std::printf(
          "idmapped mount handoff (userns + open_tree + mount_setattr + move_mount + umount), "
          "100000 files: median %.3f ms, independent of the file count (stretch: needs "
          "CAP_SYS_ADMIN); %s\n",
          median(v) / 1000, seen.c_str());
    aw::remove_tree(f->path);
  }
  ::unlink("/etc/sudoers.d/aw-user-bench");
  sh(
      fmt::format("userdel -r {0} >/dev/null 2>&1; userdel {1} >/dev/null 2>&1; groupdel {1} "
                  ">/dev/null 2>&1",
                  kOwner, kWorker));
  return rc;
}
