// Limits: cgroup v2 when the phase's cgroup has controllers, else cgroup v1 memory/pids/cpu
// groups made here (and removed by sweep_sandbox_cgroups); rlimits in the child.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "base/fs.h"
#include "isolate/sandbox/limits_source.h"
#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"
#include "proc/cgroup_v1.h"
#include "proc/runner.h"

namespace aw {
namespace sandbox {

Status write_existing(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return fail("open {}: {}", path, errno_text(errno));
  ssize_t n = ::write(fd, data.data(), data.size());
  int e = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(data.size())) return fail("write {}: {}", path, errno_text(e));
  return {};
}

namespace {

constexpr const char* kPrefix = "awaywork-sandbox-";
constexpr const char* kV1Controllers[] = {"memory", "pids", "cpu"};

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// Our own group in a v1 hierarchy, as mounted here: new groups go below it, where whoever confined
// us delegated (proc/cgroup_v1.h: inside a container the mount shows that group, not the root).
Result<std::string> v1_dir(const std::string& controller) {
  return own_v1_group_dir(controller);
}

std::string cpu_max(double cpus) {
  long period = 100000;
  return fmt::format("{} {}", static_cast<long>(std::ceil(cpus * period)), period);
}

Status v2_limits(const SandboxPlan& plan, const std::string& dir) {
  AW_CHECK(write_existing(dir + "/memory.max", std::to_string(plan.limits.memory_bytes)));
  if (exists(dir + "/memory.swap.max")) AW_CHECK(write_existing(dir + "/memory.swap.max", "0"));
  AW_CHECK(write_existing(dir + "/pids.max", std::to_string(plan.limits.pids)));
  if (exists(dir + "/cpu.max"))
    AW_CHECK(write_existing(dir + "/cpu.max", cpu_max(plan.limits.cpus)));
  return {};
}

// "awaywork-sandbox-<unit>" when the plan names its unit (one group per unit, reused by each
// phase: creating v1 memory groups is the slow part), else one per launch.
std::string group_name(const SandboxPlan& plan, pid_t child) {
  std::string name = plan.cgroup_name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return kPrefix + (name.empty() ? std::to_string(child) : name);
}

// Makes the group; false when it was there already (made by an earlier phase of the unit, its
// limits set then).
Result<bool> v1_make_group(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) return false;
  return fail(
      "mkdir {}: {} (run as root where the cgroup hierarchies are writable, or give awaywork a "
      "delegated cgroup v2 subtree; awaywork doctor tries this)",
      dir, errno_text(errno));
}

Status v1_set_limits(const SandboxPlan& plan, const char* controller, const std::string& dir) {
  std::string name = controller;
  if (name == "memory") {
    AW_CHECK(
        write_existing(dir + "/memory.limit_in_bytes", std::to_string(plan.limits.memory_bytes)));
    if (exists(dir + "/memory.memsw.limit_in_bytes"))
      (void)write_existing(dir + "/memory.memsw.limit_in_bytes",
                           std::to_string(plan.limits.memory_bytes));
    return {};
  }
  if (name == "pids") return write_existing(dir + "/pids.max", std::to_string(plan.limits.pids));
  AW_CHECK(write_existing(dir + "/cpu.cfs_period_us", "100000"));
  return write_existing(dir + "/cpu.cfs_quota_us",
                        std::to_string(static_cast<long>(std::ceil(plan.limits.cpus * 100000))));
}

Status v1_limits(const SandboxPlan& plan, pid_t child) {
  for (const char* c : kV1Controllers) {
    auto found = v1_dir(c);
    if (!found) return fail("{} (and no cgroup v2 controllers)", found.error().message);
    const std::string& base = *found;
    if (!exists(base))
      return fail("no cgroup v1 {} hierarchy at {} (and no cgroup v2 controllers)", c, base);
    std::string dir = fmt::format("{}/{}", base, group_name(plan, child));
    // Another unit's sweep removes every empty group, so one is joined the moment it is made
    // (rmdir of a group with a member fails), and only then given its limits: the child waits
    // for this setup before it runs anything. A sweep between our mkdir and our join (the join
    // fails) means making it again. Limits written first (the slow part) left a window wide
    // enough that 16 units at once lost a group five times running.
    bool ours = false;  // made here, by any attempt: its limits are ours to write
    Status joined = fail("not tried");
    for (int attempt = 0; attempt < 20 && !joined; ++attempt) {
      AW_TRY(bool made, v1_make_group(dir));
      ours = ours || made;
      joined = write_existing(dir + "/cgroup.procs", std::to_string(child));
    }
    AW_CHECK(joined);
    if (ours) AW_CHECK(v1_set_limits(plan, c, dir));
  }
  return {};
}

}  // namespace

Status apply_cgroup_limits(const SandboxPlan& plan, const ExecRequest& req, pid_t child) {
  if (!req.cgroup_dir.empty() && exists(req.cgroup_dir + "/memory.max") &&
      exists(req.cgroup_dir + "/pids.max"))
    return v2_limits(plan, req.cgroup_dir);
  return v1_limits(plan, child);
}

std::string apply_rlimits(const SandboxPlan& plan) {
  struct rlimit core {
    0, 0
  };
  if (::setrlimit(RLIMIT_CORE, &core) != 0) return step_error("rlimits", "core", errno);
  // The pids limit again as RLIMIT_NPROC, set here inside the sandbox's own user namespace, where
  // the kernel counts it for this namespace alone (the owner's processes outside do not count):
  // a fork bomb stops even where no cgroup gives a pids limit (`limits: off`, an owner without a
  // delegated pids controller). Never raised above what we were given. The kernel exempts uid 0
  // outside (a root owner, who has cgroups anyway).
  struct rlimit nproc {};
  if (plan.limits.pids > 0 && ::getrlimit(RLIMIT_NPROC, &nproc) == 0) {
    rlim_t want = static_cast<rlim_t>(plan.limits.pids);
    if (nproc.rlim_max != RLIM_INFINITY) want = std::min(want, nproc.rlim_max);
    nproc.rlim_cur = nproc.rlim_max = want;
    if (::setrlimit(RLIMIT_NPROC, &nproc) != 0) return step_error("rlimits", "nproc", errno);
  }
  // Keep nofile within the hard limit we were given (it cannot be raised without privilege).
  struct rlimit nofile {};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
    nofile.rlim_cur = std::min<rlim_t>(nofile.rlim_max, 8192);
    if (::setrlimit(RLIMIT_NOFILE, &nofile) != 0) return step_error("rlimits", "nofile", errno);
  }
  return {};
}

}  // namespace sandbox

Result<std::string> probe_v1_limits() {
  static std::atomic<unsigned> serial{0};
  std::string memory;
  for (const char* c : sandbox::kV1Controllers) {
    auto found = sandbox::v1_dir(c);
    if (!found) return fail(found.error().message);
    if (!sandbox::exists(*found)) return fail("no cgroup v1 {} hierarchy at {}", c, *found);
    if (memory.empty()) memory = *found;
    // Named as a launch's group of this process (sweep_sandbox_cgroups leaves it to us while we
    // live, and removes it if we die before our rmdir); numbered for threads probing at once.
    std::string dir =
        fmt::format("{}/{}{}-probe{}", *found, sandbox::kPrefix, ::getpid(), serial++);
    if (::mkdir(dir.c_str(), 0755) != 0) return fail("mkdir {}: {}", dir, errno_text(errno));
    // The file a unit's limit goes to: the group belongs to the controller's hierarchy.
    std::string name = c;
    std::string file = dir + "/" +
                       (name == "memory" ? "memory.limit_in_bytes"
                        : name == "pids" ? "pids.max"
                                         : "cpu.cfs_quota_us");
    bool has = sandbox::exists(file);
    int removed = ::rmdir(dir.c_str()) == 0 || errno == ENOENT ? 0 : errno;
    if (!has) return fail("{} has no {}", dir, file);
    if (removed != 0) return fail("rmdir {}: {}", dir, errno_text(removed));
  }
  return memory;
}

std::string describe_limits(bool enabled) {
  CgroupSources s = cgroup_sources();
  std::string where = "phases contained by " + s.containment;
  if (!enabled)
    return where +
           "; limits off in the config (RLIMIT_NPROC at limits.pids in the sandbox's user "
           "namespace still caps processes)";
  if (!s.v2_controllers.empty())
    return where + "; limits from its cgroup v2 groups (" + s.v2_controllers + ")";
  // Tried, not assumed from euid 0: root in a container is handed read-only hierarchies.
  auto v1 = probe_v1_limits();
  if (v1)
    return where + "; limits from cgroup v1 groups (memory, pids, cpu) below awaywork's own (" +
           *v1 + ")";
  return where + "; no cgroup of this owner's can hold limits (" +
         (s.why_no_v2.empty() ? "" : s.why_no_v2 + "; ") + "cgroup v1: " + v1.error().message + ")";
}

int SandboxOomCount::sweep_after_phase() {
  SandboxPlan named;
  named.cgroup_name = name_;
  auto base = sandbox::v1_dir("memory");
  std::string dir = base ? *base + "/" + sandbox::group_name(named, 0) : "";
  int now = dir.empty() ? 0 : oom_kills_in(dir);  // 0 when the group is not there
  int during = std::max(0, now - seen_);
  (void)sweep_sandbox_cgroups();
  seen_ = dir.empty() ? 0 : oom_kills_in(dir);
  return during;
}

Status sweep_sandbox_cgroups() {
  std::string errors;
  for (const char* c : sandbox::kV1Controllers) {
    auto found = sandbox::v1_dir(c);
    if (!found) continue;
    const std::string& base = *found;
    DIR* d = ::opendir(base.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind(sandbox::kPrefix, 0) != 0) continue;
      // A group whose init still lives may be mid-setup (not yet joined): leave it alone.
      pid_t owner = static_cast<pid_t>(std::atol(name.c_str() + std::strlen(sandbox::kPrefix)));
      if (owner > 0 && ::kill(owner, 0) == 0) continue;
      // rmdir of a v1 group only succeeds once it is empty: a running phase keeps its own.
      if (::rmdir((base + "/" + name).c_str()) != 0 && errno != EBUSY && errno != ENOENT)
        errors += fmt::format(" {}/{}: {};", base, name, errno_text(errno));
    }
    ::closedir(d);
  }
  if (!errors.empty()) return fail("remove sandbox cgroups:{}", errors);
  return {};
}

}  // namespace aw
