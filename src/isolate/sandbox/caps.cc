// Child side: give up every privilege before exec. Inside its user namespace the init holds all
// capabilities; the phase must hold none, and must not regain any through exec (uid 0, file caps,
// setuid binaries).
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "isolate/sandbox/steps.h"

namespace aw::sandbox {

std::string drop_privileges(const SandboxPlan& plan) {
  if (!plan.enabled("nnp")) return {};
  // Securebits first (needs CAP_SETPCAP): uid 0 inside must not mean full capabilities on exec.
  if (::prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                                     SECBIT_NO_CAP_AMBIENT_RAISE |
                                     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED) != 0)
    return step_error("capabilities", "securebits", errno);
  if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
    return step_error("capabilities", "clear ambient", errno);
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
      return step_error("capabilities", "drop bounding set", errno);
  struct __user_cap_header_struct hdr {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capset, &hdr, data) != 0) return step_error("capabilities", "capset", errno);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return step_error("no_new_privs", "prctl", errno);
  return {};
}

}  // namespace aw::sandbox
