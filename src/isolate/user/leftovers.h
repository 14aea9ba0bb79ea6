// The worker's leftovers (DESIGN.md section 3, isolation user): every unit runs as the same
// worker, so whatever one unit leaves where every user may write (/tmp, /var/tmp, /dev/shm,
// /run/lock, /dev/mqueue, any world-writable folder: shared_places.h finds them) or in System V
// IPC (ipc_leftovers.h) waits there for whatever looks at it next. After every unit, and in crash
// recovery, once the worker's processes are proved gone:
//
//   sudo -n -u WORKER -- HELPER __sweep-worker --keep FOLDER... -- PLACE...
//     (the first sudoers rule: the removal runs AS the worker, so it can do nothing the worker
//     could not; a link the worker planted to an owner's file is unlinked, its target untouched;
//     then the worker's SysV shared memory, semaphore sets and message queues are removed)
//   then the owner walks the same trees and reads /proc/sysvipc, and proves nothing of the
//   worker's is left.
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

// The shared trees a worker can write into on any Linux machine: always swept, whatever the
// search for the others finds.
inline const std::vector<std::string>& leftover_roots() {
  static const std::vector<std::string> roots = {"/tmp", "/var/tmp", "/dev/shm"};
  return roots;
}

struct LeftoverSweep {
  std::vector<std::string> removed;  // the worker's entries removed (top-most only), by path,
                                     // then its SysV IPC objects (describe_ipc)
  std::vector<std::string> places;   // the folders swept
  std::string incomplete;            // shared_places' word when its search was cut short
};

// The owner's side: runs the worker's half through sudo with `helper` (an awaywork the worker can
// run and not change, worker_sandbox.h) over `roots` (by default every place shared_places finds
// for the worker), then proves none of the worker's entries and IPC objects remain. An Error
// names what is left (the caller records it; the next unit's sweep tries again).
Result<LeftoverSweep> sweep_worker_leftovers(
    const WorkerUser& worker, const std::string& helper, const std::vector<std::string>& keep,
    const std::optional<std::vector<std::string>>& roots = std::nullopt);

// Entries owned by uid under roots (not following links, not crossing file systems, not entering
// keep nor a folder uid/gid cannot search), top-most only: what the owner's proof looks for.
std::vector<std::string> entries_owned_by(uid_t uid, gid_t gid,
                                          const std::vector<std::string>& roots,
                                          const std::vector<std::string>& keep);

// For a record: one line naming what was removed (names escaped, at most a few dozen).
std::string describe_sweep(const std::string& worker, const LeftoverSweep& s);

// The worker's half, `awaywork __sweep-worker --keep P... -- ROOT...`, run as the worker: removes
// every entry the caller owns and every SysV IPC object it owns or created, and prints
// {"removed": [...], "left": [...]} as JSON. nullopt when argv is not that command.
std::optional<int> sweep_worker_main(int argc, char** argv);

}  // namespace aw
