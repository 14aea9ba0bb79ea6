// What a forge session's GitHub client spent, added to the record's forge_usage (for /metrics).
// Call it once, when the session is done with (a unit's end, `apply`'s end): the forge's
// publisher does, from record_usage (unit/publisher.h).
#pragma once

#include "base/result.h"
#include "forge/session.h"
#include "record/store.h"

namespace aw {

Status save_forge_usage(Store& store, const ForgeSession& s);

}  // namespace aw
