// landlock: a second, independent fence mirroring the filesystem view (read everywhere, write only
// where the view is writable), TCP connect limited to the bridge ports in network none/allowlist,
// and (ABI 6) signals and abstract unix sockets scoped to the sandbox. Linux headers here stop at
// ABI 2, so the later structures and bits are defined here.
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "isolate/sandbox/sandbox.h"
#include "isolate/sandbox/steps.h"

namespace aw {
namespace sandbox {
namespace {

// ABI 3..6 additions (uapi/linux/landlock.h of newer kernels).
constexpr uint64_t kTruncate = 1ULL << 14;   // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;   // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0;  // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ULL << 1;
constexpr uint32_t kRuleNetPort = 2;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct PathBeneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

struct NetPort {
  uint64_t allowed_access;
  uint64_t port;
} __attribute__((packed));

uint64_t fs_rights(int abi) {
  uint64_t all = (1ULL << 13) - 1;  // EXECUTE .. MAKE_SYM (ABI 1)
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= kTruncate;
  if (abi >= 5) all |= kIoctlDev;
  return all;
}

constexpr uint64_t kReadRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

bool allow_path(int ruleset, const char* path, uint64_t rights) {
  int fd = ::open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;  // nothing there to allow
  PathBeneath rule{rights, fd};
  long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  ::close(fd);
  return rc == 0;
}

}  // namespace

std::string apply_landlock(const SandboxPlan& plan, int abi) {
  uint64_t all = fs_rights(abi);
  RulesetAttr attr{all, 0, 0};
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4 && plan.network != Network::host) {
    attr.handled_access_net = kNetConnectTcp;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    attr_size = sizeof attr;
  }
  int rs = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (rs < 0) return step_error("landlock", "create ruleset", errno);
  bool ok = allow_path(rs, "/", kReadRights);
  uint64_t writable = all & ~LANDLOCK_ACCESS_FS_EXECUTE;
  writable &= ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
  for (const auto& p : plan.writable)
    ok = ok && allow_path(rs, p.c_str(), writable | LANDLOCK_ACCESS_FS_EXECUTE);
  for (const char* p : {"/tmp", "/dev/shm"})
    ok = ok && allow_path(rs, p, writable | LANDLOCK_ACCESS_FS_EXECUTE);
  // Writing to /dev/null and the tty, and terminal ioctls on devices.
  ok = ok && allow_path(rs, "/dev",
                        LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 5 ? kIoctlDev : 0) |
                            (abi >= 3 ? kTruncate : 0));
  ok = ok && allow_path(rs, "/proc", LANDLOCK_ACCESS_FS_WRITE_FILE);  // /proc/self/* of our own
  if (attr.handled_access_net)
    for (const auto& b : active_bridges(plan)) {  // the bridges out, nothing else
      NetPort rule{kNetConnectTcp, b.port};
      ok = ok && ::syscall(SYS_landlock_add_rule, rs, kRuleNetPort, &rule, 0) == 0;
    }
  if (!ok) {
    int e = errno;
    ::close(rs);
    return step_error("landlock", "add rule", e);
  }
  if (plan.enabled("nnp") && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return step_error("landlock", "no_new_privs", errno);
  long rc = ::syscall(SYS_landlock_restrict_self, rs, 0);
  int e = errno;
  ::close(rs);
  return rc == 0 ? std::string() : step_error("landlock", "restrict self", e);
}

}  // namespace sandbox

int landlock_abi() {
  long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

}  // namespace aw
