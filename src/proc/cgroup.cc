#include "proc/cgroup.h"

#include "proc/cgroup_delegate.h"
#include "proc/runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>

namespace aw {

namespace {

bool is_cgroup2(const char* path) {
  struct statfs fs {};
  return ::statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

bool is_cgroup1(const char* path) {
  struct statfs fs {};
  return ::statfs(path, &fs) == 0 && fs.f_type == CGROUP_SUPER_MAGIC;
}

void sleep_ms(int ms) {
  timespec ts{0, ms * 1000000L};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

// Small reads and writes of control files; no stdio (the keeper may be a child of a threaded
// process, so it sticks to syscalls and the allocator).
bool write_text(const std::string& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::write(fd, text.data(), text.size());
  ::close(fd);
  return n == static_cast<ssize_t>(text.size());
}

std::string read_text(const std::string& path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

void append_pids(const std::string& path, std::vector<pid_t>& out) {
  std::string text = read_text(path);
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    pid_t pid = 0;
    auto [next, ec] = std::from_chars(p, end, pid);
    if (ec == std::errc() && pid > 0) {
      bool dup = false;
      for (pid_t q : out) dup = dup || q == pid;
      if (!dup) out.push_back(pid);
    }
    p = next;
    while (p < end && (*p == '\n' || *p == ' ')) ++p;
    if (ec != std::errc()) ++p;
  }
}

// mkdir root/awaywork, then root/awaywork/leaf. EEXIST on the leaf means a stale folder from a
// keeper that died with our pid number: refuse it rather than share it.
bool make_leaf(const std::string& root, std::string_view leaf, std::string& dir) {
  std::string parent = root + "/awaywork";
  if (::mkdir(parent.c_str(), 0755) == 0) {
    enable_controllers(root);  // the phases' groups get the limits' controllers, where offered
    enable_controllers(parent);
  } else if (errno != EEXIST) {
    return false;
  }
  dir = parent + "/" + std::string(leaf);
  return ::mkdir(dir.c_str(), 0755) == 0;
}

bool wait_frozen(const std::string& dir) {
  for (int i = 0; i < 200; ++i) {
    if (read_text(dir + "/freezer.state").rfind("FROZEN", 0) == 0) return true;
    sleep_ms(1);
  }
  return false;
}

bool wait_v2_frozen(const std::string& dir) {
  for (int i = 0; i < 200; ++i) {
    if (read_text(dir + "/cgroup.events").find("frozen 1") != std::string::npos) return true;
    sleep_ms(1);
  }
  return false;
}

// The number after `key ` on its own line of a small cgroup file; -1 when absent. open/read into
// a buffer of the stack: the keeper calls this.
long long counter_in(const char* path, const char* key) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  char buf[2048];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  size_t klen = std::strlen(key);
  for (char* line = buf; line && *line;) {
    char* nl = std::strchr(line, '\n');
    if (std::strncmp(line, key, klen) == 0 && line[klen] == ' ') {
      long long v = 0;
      auto end = nl ? nl : line + std::strlen(line);
      if (std::from_chars(line + klen + 1, end, v).ec == std::errc()) return v;
    }
    line = nl ? nl + 1 : nullptr;
  }
  return -1;
}

}  // namespace

int oom_kills_in(const std::string& dir) {
  long long v1 = counter_in((dir + "/memory.oom_control").c_str(), "oom_kill");
  if (v1 >= 0) return static_cast<int>(v1);
  long long v2 = counter_in((dir + "/memory.events").c_str(), "oom_kill");
  return v2 > 0 ? static_cast<int>(v2) : 0;
}

int cgroup_oom_kills(const PhaseCgroup& cg) {
  return cg.kind == CgroupKind::v2 ? oom_kills_in(cg.dir) : 0;
}

CgroupRoots find_cgroup_roots(CgroupMode mode, std::string* why_no_v2) {
  CgroupRoots r;
  if (mode == CgroupMode::none) return r;
  if (mode != CgroupMode::v1_only) {
    std::string mount = is_cgroup2("/sys/fs/cgroup")           ? "/sys/fs/cgroup"
                        : is_cgroup2("/sys/fs/cgroup/unified") ? "/sys/fs/cgroup/unified"
                                                               : "";
    if (mount.empty()) {
      if (why_no_v2) *why_no_v2 = "no cgroup2 file system is mounted";
    } else if (::geteuid() == 0 || ::access(mount.c_str(), W_OK) == 0) {
      r.v2 = mount;  // root's own: v2_source stays "" (the record says plain "cgroup v2")
    } else if (auto d = delegated_cgroup(mount, true, why_no_v2)) {
      r.v2 = d->base;
      r.v2_source = d->source;
    }
  }
  if (mode != CgroupMode::v2_only) {
    if (is_cgroup1("/sys/fs/cgroup/freezer")) r.v1_freezer = "/sys/fs/cgroup/freezer";
    if (!r.v1_freezer.empty() && is_cgroup1("/sys/fs/cgroup/pids"))
      r.v1_pids = "/sys/fs/cgroup/pids";
  }
  return r;
}

PhaseCgroup create_phase_cgroup(const CgroupRoots& roots, std::string_view leaf) {
  PhaseCgroup cg;
  std::string dir;
  if (!roots.v2.empty() && make_leaf(roots.v2, leaf, dir)) {
    // cgroup.kill (Linux 5.14) is what makes v2 worth preferring; without it use v1.
    if (::access((dir + "/cgroup.kill").c_str(), W_OK) == 0) {
      cg.kind = CgroupKind::v2;
      cg.dir = dir;
      cg.procs = dir + "/cgroup.procs";
      return cg;
    }
    ::rmdir(dir.c_str());
  }
  if (!roots.v1_freezer.empty() && make_leaf(roots.v1_freezer, leaf, dir)) {
    cg.kind = CgroupKind::v1;
    cg.dir = dir;
    cg.procs = dir + "/cgroup.procs";
    std::string pids;
    if (!roots.v1_pids.empty() && make_leaf(roots.v1_pids, leaf, pids)) cg.pids_dir = pids;
  }
  return cg;
}

PhaseCgroup existing_phase_cgroup(const CgroupRoots& roots, std::string_view leaf) {
  PhaseCgroup cg;
  auto at = [&](const std::string& root) { return root + "/awaywork/" + std::string(leaf); };
  struct stat st {};
  if (!roots.v2.empty() && ::lstat(at(roots.v2).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    cg.kind = CgroupKind::v2;
    cg.dir = at(roots.v2);
  } else if (!roots.v1_freezer.empty() && ::lstat(at(roots.v1_freezer).c_str(), &st) == 0 &&
             S_ISDIR(st.st_mode)) {
    cg.kind = CgroupKind::v1;
    cg.dir = at(roots.v1_freezer);
    if (!roots.v1_pids.empty() && ::lstat(at(roots.v1_pids).c_str(), &st) == 0)
      cg.pids_dir = at(roots.v1_pids);
  }
  if (cg.kind != CgroupKind::none) cg.procs = cg.dir + "/cgroup.procs";
  return cg;
}

std::vector<pid_t> cgroup_members(const PhaseCgroup& cg) {
  std::vector<pid_t> out;
  if (cg.kind == CgroupKind::v2) append_pids(cg.dir + "/cgroup.procs", out);
  if (cg.kind == CgroupKind::v1) {
    append_pids(cg.dir + "/tasks", out);
    if (!cg.pids_dir.empty()) append_pids(cg.pids_dir + "/tasks", out);
  }
  return out;
}

void cgroup_kill_all(const PhaseCgroup& cg, const std::function<void(pid_t)>& note) {
  if (cg.kind == CgroupKind::v2) {
    // Freeze first so that the names are read from a group that cannot fork meanwhile; cgroup.kill
    // then kills frozen and forking members alike.
    if (write_text(cg.dir + "/cgroup.freeze", "1")) wait_v2_frozen(cg.dir);
    for (pid_t p : cgroup_members(cg)) note(p);
    write_text(cg.dir + "/cgroup.kill", "1");
    return;
  }
  if (cg.kind != CgroupKind::v1) return;
  // Frozen tasks cannot fork, so the list read while frozen is complete. A freeze that does not
  // settle (a task in uninterruptible sleep) still gets the kill; the caller's loop retries.
  if (write_text(cg.dir + "/freezer.state", "FROZEN")) wait_frozen(cg.dir);
  for (pid_t p : cgroup_members(cg)) {
    note(p);
    ::kill(p, SIGKILL);
  }
  // SIGKILL is delivered to frozen tasks only once they thaw.
  write_text(cg.dir + "/freezer.state", "THAWED");
}

bool remove_phase_cgroup(const PhaseCgroup& cg) {
  if (cg.kind == CgroupKind::none) return true;
  bool ok = true;
  for (const std::string* dir : {&cg.dir, &cg.pids_dir}) {
    if (dir->empty()) continue;
    bool gone = false;
    // Members that were killed leave the cgroup as they finish exiting: a short EBUSY is normal.
    for (int i = 0; i < 500 && !gone; ++i) {
      if (::rmdir(dir->c_str()) == 0 || errno == ENOENT)
        gone = true;
      else if (errno == EBUSY)
        sleep_ms(i < 10 ? 1 : 5);
      else
        break;
    }
    ok = ok && gone;
  }
  return ok;
}

int sweep_orphaned_phase_cgroups(const CgroupRoots& roots) {
  int removed = 0;
  for (const std::string* root : {&roots.v2, &roots.v1_freezer, &roots.v1_pids}) {
    if (root->empty()) continue;
    std::string parent = *root + "/awaywork";
    std::vector<std::string> leaves;
    if (DIR* d = ::opendir(parent.c_str())) {
      while (dirent* e = ::readdir(d))
        if (e->d_type == DT_DIR && e->d_name[0] != '.') leaves.emplace_back(e->d_name);
      ::closedir(d);
    }
    for (const auto& leaf : leaves) {
      // <phase>-<awaywork pid>-<keeper pid>: orphaned when either is gone. A keeper whose
      // awaywork died is itself about to die (parent-death signal) and cannot clean up any more.
      pid_t keeper = 0, runner = 0;
      size_t dash = leaf.rfind('-');
      if (dash == std::string::npos || dash == 0) continue;
      size_t dash2 = leaf.rfind('-', dash - 1);
      auto [end, ec] = std::from_chars(leaf.data() + dash + 1, leaf.data() + leaf.size(), keeper);
      if (ec != std::errc() || end != leaf.data() + leaf.size() || keeper <= 0) continue;
      if (dash2 != std::string::npos)
        std::from_chars(leaf.data() + dash2 + 1, leaf.data() + dash, runner);
      auto gone = [](pid_t p) { return p > 0 && ::kill(p, 0) != 0 && errno == ESRCH; };
      if (!gone(keeper) && !gone(runner)) continue;
      PhaseCgroup cg;
      cg.kind = root == &roots.v2 ? CgroupKind::v2 : CgroupKind::v1;
      cg.dir = parent + "/" + leaf;
      cg.procs = cg.dir + "/cgroup.procs";
      for (int i = 0; i < 100 && !cgroup_members(cg).empty(); ++i) {
        if (root == &roots.v1_pids) {
          for (pid_t p : cgroup_members(cg)) ::kill(p, SIGKILL);
        } else {
          cgroup_kill_all(cg, [](pid_t) {});
        }
        sleep_ms(5);
      }
      if (cgroup_members(cg).empty() && remove_phase_cgroup(cg)) ++removed;
    }
  }
  return removed;
}

std::string v2_limit_controllers(const CgroupRoots& roots) {
  if (roots.v2.empty()) return "";
  std::string on = read_text(roots.v2 + "/awaywork/cgroup.subtree_control");
  if (on.empty()) on = read_text(roots.v2 + "/cgroup.subtree_control");  // before the first phase
  std::string out;
  for (std::string_view c : {"memory", "pids", "cpu"})
    if (has_word(on, c)) {
      if (!out.empty()) out.push_back(' ');
      out.append(c);
    }
  return out;
}

const char* containment_name(CgroupKind kind) {
  switch (kind) {
    case CgroupKind::v2:
      return "cgroup v2";
    case CgroupKind::v1:
      return "cgroup v1 freezer";
    case CgroupKind::none:
      break;
  }
  return "subreaper";
}

}  // namespace aw
