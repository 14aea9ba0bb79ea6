// The phase's cgroup: where one can be made (cgroup v2 preferred, else the v1 freezer), the keeper
// creates a fresh folder per phase, the main process joins it before exec, and after the phase the
// keeper kills whatever is in it, proves it empty and removes it. Internal to proc/ (and its
// tests).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace aw {

// Which containment to try: `automatic` is the only one awaywork uses; the others exist so that
// tests can force each path on a machine that has them all.
enum class CgroupMode { automatic, v2_only, v1_only, none };

// Where phase cgroups can go on this machine; found by the parent before the keeper forks.
struct CgroupRoots {
  // Where awaywork's v2 groups go (v2/awaywork/<leaf>): the cgroup2 mount ("/sys/fs/cgroup" or
  // ".../unified") for root, else the owner's delegated group (cgroup_delegate.h), or "".
  std::string v2;
  // For the record and doctor, when v2 is the owner's delegated group: "a systemd user scope ..."
  std::string v2_source;
  std::string v1_freezer;  // the v1 freezer mount, or ""
  std::string v1_pids;     // the v1 pids mount (joined alongside the freezer), or ""
};
// `automatic` may move this process into a delegated group of the owner's, asking systemd's user
// manager for a scope first (cgroup_delegate.h); why, when given, says why v2 was not had.
CgroupRoots find_cgroup_roots(CgroupMode mode, std::string* why_no_v2 = nullptr);

// The controllers (of memory, pids, cpu) the phases' v2 groups get: what roots.v2/awaywork hands
// its children, "" when none (the limits then come from cgroup v1, or nowhere).
std::string v2_limit_controllers(const CgroupRoots& roots);

enum class CgroupKind { none, v2, v1 };

struct PhaseCgroup {
  CgroupKind kind = CgroupKind::none;
  std::string dir;       // v2: the folder; v1: the freezer folder
  std::string procs;     // dir + "/cgroup.procs": what the main process writes its pid to
  std::string pids_dir;  // v1 only: the pids folder of the same name, or ""
};

// "awaywork/<leaf>" under the first root that accepts a mkdir; kind none when none does.
PhaseCgroup create_phase_cgroup(const CgroupRoots& roots, std::string_view leaf);

// The folder a keeper made for `leaf`, if it still exists: how the parent cleans up after a keeper
// that died. Kind none when there is none.
PhaseCgroup existing_phase_cgroup(const CgroupRoots& roots, std::string_view leaf);

// The processes in the cgroup (v2 cgroup.procs, v1 freezer tasks and pids tasks).
std::vector<pid_t> cgroup_members(const PhaseCgroup& cg);

// Kill every member: v2 writes cgroup.kill; v1 freezes, SIGKILLs each task, thaws. `note` is called
// with each member found before it is killed (v1: while frozen), so its name can still be read.
void cgroup_kill_all(const PhaseCgroup& cg, const std::function<void(pid_t)>& note);

// How many processes the kernel's OOM killer ended in a v2 group at its memory.max (the oom_kill
// line of memory.events); 0 for v1 (its freezer group holds no memory limit) or without the file.
int cgroup_oom_kills(const PhaseCgroup& cg);

// rmdir the folder(s), retrying briefly while the last members finish exiting. True when gone.
bool remove_phase_cgroup(const PhaseCgroup& cg);

// Empty and remove the phase folders under awaywork/ whose keeper (the pid at the end of the
// leaf name) is gone: what phases of an awaywork that was killed outright left behind. A folder
// whose keeper pid is in use is left alone (it may be a live keeper). Returns how many were
// removed.
int sweep_orphaned_phase_cgroups(const CgroupRoots& roots);

// "cgroup v2", "cgroup v1 freezer", "subreaper".
const char* containment_name(CgroupKind kind);

}  // namespace aw
