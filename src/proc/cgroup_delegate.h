// A cgroup v2 folder of the owner's own, for an owner who is not root (DESIGN.md section 11):
// root makes awaywork's groups at the root of the tree; anyone else only where the tree is
// delegated to them. In order:
//
//   1. the owner's own cgroup, when it is delegated (systemd marks a delegated group with the
//      user.delegate / trusted.delegate xattr; a cgroup namespace's root, as in a container,
//      counts too): awaywork moves itself into a leaf of it, `awaywork.self` (the
//      no-internal-process rule: a group with members cannot hand controllers to its children),
//      and makes its groups beside that leaf, under `awaywork/`;
//   2. else, when a systemd user manager answers on the session bus, a transient scope
//      `awaywork-PID.scope` with Delegate=yes asked for over D-Bus (sd-bus), as
//      `systemd-run --user --scope -p Delegate=yes` does; then as in 1.
//
// The caller (find_cgroup_roots) falls back to cgroup v1 and then to none.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aw {

struct DelegatedCgroup {
  std::string base;    // absolute folder; awaywork's groups go in base/awaywork/
  std::string source;  // for the record and doctor: where it came from
};

// mount: the cgroup2 mount ("/sys/fs/cgroup" or ".../unified"). Moves this process into
// base/awaywork.self, enables the controllers base offers for its children (best effort), and may
// ask systemd for a scope (ask_systemd). nullopt when neither way gives one; why says why.
std::optional<DelegatedCgroup> delegated_cgroup(const std::string& mount, bool ask_systemd,
                                                std::string* why = nullptr);

// Enable in dir/cgroup.subtree_control every one of memory, pids, cpu that dir/cgroup.controllers
// offers (best effort: a group with members of its own refuses, EBUSY).
void enable_controllers(const std::string& dir);

// Is word one of the space- or newline-separated words of text (a cgroup.controllers file)?
bool has_word(std::string_view text, std::string_view word);

}  // namespace aw
