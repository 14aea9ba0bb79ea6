// What a forge session's GitHub client spent, added to the record's forge_usage (for /metrics).
// Call it once, when the session is done with (a unit's end, `apply`'s end, a watcher's pass).
//
//   ForgeUsageOnExit usage{store, t.forge.get()};   // saved when the scope ends
#pragma once

#include "base/result.h"
#include "forge/session.h"
#include "record/store.h"

namespace aw {

Status save_forge_usage(Store& store, const ForgeSession& s);

// Saves at scope exit (every return of a long function); a failure to save is not the unit's.
struct ForgeUsageOnExit {
  Store& store;
  const ForgeSession* session;
  ~ForgeUsageOnExit() {
    if (session) (void)save_forge_usage(store, *session);
  }
};

}  // namespace aw
