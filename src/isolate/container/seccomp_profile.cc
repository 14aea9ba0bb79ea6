#include "isolate/container/seccomp_profile.h"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

namespace {

using nlohmann::json;

json arg(int index, unsigned long value, const char* op) {
  return {{"index", index}, {"value", value}, {"valueTwo", 0}, {"op", op}};
}

json rule(const char* name, const char* action, json args) {
  return {{"names", {name}}, {"action", action}, {"args", std::move(args)}};
}

// The sandbox's denied list (sandbox/seccomp.cc) but personality, which the base already allows
// only for its harmless values; and what is re-added below with conditions.
constexpr const char* kDropped[] = {
    "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv",
    "process_vm_writev", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
    "userfaultfd", "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
    "fsmount", "fsconfig", "fspick", "mount_setattr", "open_tree_attr", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "setns", "swapon", "swapoff",
    "reboot", "acct", "quotactl", "lookup_dcookie", "name_to_handle_at", "open_by_handle_at",
    "iopl", "ioperm", "syslog", "vhangup", "nfsservctl", "uselib", "landlock_create_ruleset",
    "unshare",
    // re-added with conditions:
    "socket", "ioctl", "clone", "clone3"};

bool dropped(const std::string& name) {
  return std::find(std::begin(kDropped), std::end(kDropped), name) != std::end(kDropped);
}

// CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET: no new namespace of any kind.
constexpr unsigned long kNamespaceFlags = 0x7E020000;
constexpr int kEnosys = 38;

}  // namespace

Result<std::string> tighten_seccomp_profile(const std::string& base) {
  json p = json::parse(base, nullptr, false);
  if (!p.is_object() || !p.contains("syscalls") || !p["syscalls"].is_array())
    return fail("not a seccomp profile (no syscalls list)");
  // Read without a throw: a defaultAction of the wrong type is an error naming it.
  AW_TRY(std::string by_default, JsonRead(p, "the base profile").str_or("defaultAction", ""));
  if (by_default == "SCMP_ACT_ALLOW")
    return fail("the base profile allows by default; refusing to build on it");
  json out = json::array();
  for (auto& r : p["syscalls"]) {
    if (!r.contains("names") || !r["names"].is_array()) continue;
    json names = json::array();
    for (const auto& n : r["names"])
      if (n.is_string() && !dropped(n.get<std::string>())) names.push_back(n);
    if (names.empty()) continue;
    r["names"] = names;
    out.push_back(r);
  }
  // Rules are OR-ed, the comparisons of one rule AND-ed; everything else is refused by default.
  for (int family : {AF_UNIX, AF_INET, AF_INET6})
    out.push_back(rule("socket", "SCMP_ACT_ALLOW",
                       {arg(0, static_cast<unsigned long>(family), "SCMP_CMP_EQ")}));
  out.push_back(
      rule("socket", "SCMP_ACT_ALLOW",
           {arg(0, AF_NETLINK, "SCMP_CMP_EQ"), arg(2, 9 /* NETLINK_AUDIT */, "SCMP_CMP_NE")}));
  // clone without namespace flags; clone3 answers ENOSYS (its flags sit in memory, beyond a
  // filter's reach) so that the C library falls back to clone, as the engines' own profiles do.
  out.push_back(rule(
      "clone", "SCMP_ACT_ALLOW",
      {{{"index", 0}, {"value", kNamespaceFlags}, {"valueTwo", 0}, {"op", "SCMP_CMP_MASKED_EQ"}}}));
  json clone3 = rule("clone3", "SCMP_ACT_ERRNO", json::array());
  clone3["errnoRet"] = kEnosys;
  out.push_back(clone3);
  // The full 64-bit register is compared while the kernel reads 32 bits, so a caller can slip
  // TIOCSTI past with high bits set; a container has no terminal of the owner's to inject into
  // (stdin is a pipe, no -t), so this only matches the sandbox's stated rule.
  out.push_back(rule("ioctl", "SCMP_ACT_ALLOW",
                     {arg(1, static_cast<unsigned long>(TIOCSTI), "SCMP_CMP_NE")}));
  p["syscalls"] = out;
  return json_text(p, 1);
}

Status write_seccomp_profile(const std::string& path, const std::string& base_path) {
  AW_TRY(std::string base, read_file(base_path, 1 << 22));
  AW_TRY(std::string tight, with_context(tighten_seccomp_profile(base), base_path));
  return write_file(path, tight, 0644);
}

}  // namespace aw
