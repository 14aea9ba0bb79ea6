// One unit per worker user at a time: after every phase all processes of the worker are killed
// (kill -1 as the worker), which would end a second unit's phase. The lock is a file in the
// owner's state folder (the worker cannot reach it), held for the unit's life; crash recovery
// takes it too, before it kills what a dead awaywork's unit left running as the worker. A plugin
// call under isolation user (plugin/worker_call.h) takes it for the call alone.
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"

namespace aw {

// What a plugin call writes into the lock file while it holds it: "plugin NAME".
inline constexpr const char* kPluginHolder = "plugin ";
// The longest a plugin call holds the worker: its longest timeout (10 min) and the handoff.
inline constexpr std::chrono::seconds kPluginHoldMax{630};

// flock(LOCK_EX | LOCK_NB) on STATE/worker-WORKER.lock. The fd holds the lock until released; an
// Error (naming the lock) when another unit holds it. Held by a plugin call, the lock is waited
// for (100 ms retries, at most kPluginHoldMax): a call is short, and a unit that starts during a
// source's poll must not fail for it. holder is written into the file while held ("" = a unit).
Result<int> lock_worker(const std::string& state_dir, const std::string& worker,
                        const std::string& holder = "");

// Releases a lock taken by lock_worker: empties the holder, closes fd.
void unlock_worker(int fd);

// Whether this process holds STATE/worker-WORKER.lock through lock_worker now. A unit's own plugin
// calls (its notifiers and checks, made between its phases, while no process of the worker runs)
// run as the worker under the unit's lock: a second flock from the same process would be refused
// (flock locks are per open file), and a second holder is what the lock exists to prevent.
bool worker_locked_here(const std::string& state_dir, const std::string& worker);

}  // namespace aw
