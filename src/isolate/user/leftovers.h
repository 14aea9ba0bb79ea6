// The worker's leftovers (DESIGN.md section 3, isolation user): every unit runs as the same
// worker, so whatever one unit leaves in a shared folder (/tmp, /var/tmp, /dev/shm) waits there
// for whatever looks at it next. After every unit, and in crash recovery, once the worker's
// processes are proved gone:
//
//   sudo -n -u WORKER -- HELPER __sweep-worker --keep FOLDER... -- /tmp /var/tmp /dev/shm
//     (the first sudoers rule: the removal runs AS the worker, so it can do nothing the worker
//     could not; a link the worker planted to an owner's file is unlinked, its target untouched)
//   then the owner walks the same trees and proves no entry of the worker's is left.
//
// The walk never follows a link and never leaves the file system of the root it started from; a
// folder of the worker's goes whole, whatever is inside (an owner's file written into a planted
// folder goes with it); the unit's own folders (`keep`) are not entered.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/user/worker.h"

namespace aw {

// The shared trees a worker can write into on any Linux machine.
inline const std::vector<std::string>& leftover_roots() {
  static const std::vector<std::string> roots = {"/tmp", "/var/tmp", "/dev/shm"};
  return roots;
}

struct LeftoverSweep {
  std::vector<std::string> removed;  // the worker's entries removed (top-most only), by path
};

// The owner's side: runs the worker's half through sudo with `helper` (an awaywork the worker can
// run and not change, worker_sandbox.h), then proves none of the worker's entries remain. An Error
// names what is left (the caller records it; the next unit's sweep tries again).
Result<LeftoverSweep> sweep_worker_leftovers(
    const WorkerUser& worker, const std::string& helper, const std::vector<std::string>& keep,
    const std::vector<std::string>& roots = leftover_roots());

// Entries owned by uid under roots (not following links, not crossing file systems, not entering
// keep nor a folder uid/gid cannot search), top-most only: what the owner's proof looks for.
std::vector<std::string> entries_owned_by(uid_t uid, gid_t gid,
                                          const std::vector<std::string>& roots,
                                          const std::vector<std::string>& keep);

// For a record: one line naming what was removed (names escaped, at most a few dozen).
std::string describe_sweep(const std::string& worker, const LeftoverSweep& s);

// The worker's half, `awaywork __sweep-worker --keep P... -- ROOT...`, run as the worker: removes
// every entry the caller owns and prints {"removed": [...], "left": [...]} as JSON. nullopt when
// argv is not that command.
std::optional<int> sweep_worker_main(int argc, char** argv);

}  // namespace aw
