// One unit per worker user at a time: after every phase all processes of the worker are killed
// (kill -1 as the worker), which would end a second unit's phase. The lock is a file in the
// owner's state folder (the worker cannot reach it), held for the unit's life; crash recovery
// takes it too, before it kills what a dead awaywork's unit left running as the worker.
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

// flock(LOCK_EX | LOCK_NB) on STATE/worker-WORKER.lock. The fd holds the lock until closed; an
// Error (naming the lock) when another unit holds it.
Result<int> lock_worker(const std::string& state_dir, const std::string& worker);

// Releases a lock taken by lock_worker: closes fd.
void unlock_worker(int fd);

// Whether this process holds STATE/worker-WORKER.lock through lock_worker now. A unit's own plugin
// calls (its notifiers and checks, made between its phases, while no process of the worker runs)
// run as the worker under the unit's lock: a second flock from the same process would be refused
// (flock locks are per open file), and a second holder is what the lock exists to prevent.
bool worker_locked_here(const std::string& state_dir, const std::string& worker);

}  // namespace aw
