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

}  // namespace aw
