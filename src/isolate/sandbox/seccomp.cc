// seccomp: deny what no agent needs. Compiled with libseccomp in the parent (it allocates), loaded
// as a raw BPF program in the child right before exec.
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "base/fs.h"
#include "isolate/sandbox/steps.h"

namespace aw::sandbox {
namespace {

struct Ctx {
  scmp_filter_ctx ctx;
  ~Ctx() { seccomp_release(ctx); }
};

// Syscalls denied outright with EPERM.
constexpr const char* kDenied[] = {
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",  // a second syscall surface
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",  // other processes' memory
    "keyctl",
    "add_key",
    "request_key",  // the owner's kernel keyrings
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "mount",
    "umount2",
    "pivot_root",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "open_tree_attr",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "setns",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "quotactl",
    "lookup_dcookie",
    "name_to_handle_at",
    "open_by_handle_at",
    "iopl",
    "ioperm",
    "personality",
    "syslog",
    "vhangup",
    "nfsservctl",
    "uselib",
    "landlock_create_ruleset",
};

// Socket families an agent uses; every other one (AF_VSOCK, AF_PACKET, AF_BLUETOOTH...) is refused.
bool family_allowed(int f) {
  return f == AF_UNIX || f == AF_INET || f == AF_INET6 || f == AF_NETLINK;
}

Status add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n, const scmp_arg_cmp* args) {
  int rc = seccomp_rule_add_array(ctx, action, nr, n, args);
  if (rc != 0 && rc != -EEXIST) return fail("rule for syscall {}: {}", nr, errno_text(-rc));
  return {};
}

Status add_rules(scmp_filter_ctx ctx) {
  const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
  for (const char* name : kDenied) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture/kernel headers
    AW_CHECK(add(ctx, deny, nr, 0, nullptr));
  }
  // Terminal injection and console tricks, whatever the tty.
  for (unsigned long req :
       {static_cast<unsigned long>(TIOCSTI), static_cast<unsigned long>(TIOCLINUX)}) {
    scmp_arg_cmp a = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, req);
    AW_CHECK(add(ctx, deny, SCMP_SYS(ioctl), 1, &a));
  }
  for (int f = 0; f < AF_MAX; ++f) {
    if (family_allowed(f)) continue;
    scmp_arg_cmp a = SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(f));
    AW_CHECK(add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, &a));
  }
  scmp_arg_cmp big = SCMP_A0(SCMP_CMP_GE, static_cast<scmp_datum_t>(AF_MAX));
  AW_CHECK(add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1, &big));
  // No nested namespaces: no user namespace (a fresh set of capabilities) nor any other.
  scmp_datum_t ns = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
                    CLONE_NEWUTS | CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */;
  for (scmp_datum_t flag = 1; flag; flag <<= 1) {
    if (!(ns & flag)) continue;
    scmp_arg_cmp a = SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag);
    AW_CHECK(add(ctx, deny, SCMP_SYS(unshare), 1, &a));
    AW_CHECK(add(ctx, deny, SCMP_SYS(clone), 1, &a));
  }
  // clone3 passes its flags in memory a filter cannot read: make libc fall back to clone.
  AW_CHECK(add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, nullptr));
  return {};
}

}  // namespace

Result<std::vector<sock_filter>> build_seccomp(const SandboxPlan& plan) {
  if (!plan.enabled("seccomp")) return std::vector<sock_filter>{};
  Ctx c{seccomp_init(SCMP_ACT_ALLOW)};
  if (!c.ctx) return fail("seccomp_init failed");
  // We load the program ourselves after no_new_privs; libseccomp must not require it at export.
  seccomp_attr_set(c.ctx, SCMP_FLTATR_CTL_NNP, 0);
  AW_CHECK(add_rules(c.ctx));
  int fd = ::memfd_create("aw-seccomp", MFD_CLOEXEC);
  if (fd < 0) return fail("memfd_create: {}", errno_text(errno));
  int rc = seccomp_export_bpf(c.ctx, fd);
  std::vector<sock_filter> prog;
  if (rc == 0) {
    off_t size = ::lseek(fd, 0, SEEK_END);
    prog.resize(static_cast<size_t>(size) / sizeof(sock_filter));
    if (::pread(fd, prog.data(), prog.size() * sizeof(sock_filter), 0) != size) rc = -EIO;
  }
  ::close(fd);
  if (rc != 0) return fail("export seccomp filter: {}", errno_text(-rc));
  return prog;
}

std::string apply_seccomp(const std::vector<sock_filter>& prog, bool set_nnp) {
  if (prog.empty()) return {};
  struct sock_fprog fprog {};
  fprog.len = static_cast<unsigned short>(prog.size());
  fprog.filter = const_cast<sock_filter*>(prog.data());
  if (set_nnp && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return step_error("seccomp", "no_new_privs", errno);
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0)
    return step_error("seccomp", "load filter", errno);
  return {};
}

}  // namespace aw::sandbox
