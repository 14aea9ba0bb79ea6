// Parent side of the user namespace: map the caller's uid and gid to themselves inside, so files
// keep their owners and an unprivileged caller needs no helper (one line, setgroups denied).
#include <fmt/format.h>

#include "isolate/sandbox/steps.h"

namespace aw::sandbox {

Status write_id_maps(pid_t child, uid_t uid, gid_t gid) {
  std::string base = fmt::format("/proc/{}/", child);
  // setgroups must be denied before an unprivileged gid_map; it also stops the phase from ever
  // dropping a supplementary group that a deny ACL relies on.
  AW_CHECK(write_existing(base + "setgroups", "deny"));
  AW_CHECK(write_existing(base + "uid_map", fmt::format("{} {} 1\n", uid, uid)));
  AW_CHECK(write_existing(base + "gid_map", fmt::format("{} {} 1\n", gid, gid)));
  return {};
}

}  // namespace aw::sandbox
