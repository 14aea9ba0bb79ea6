// `awaywork apply ID`: publish a recorded unit again (or for the first time) from its kept
// outputs, runs/<id>/patch.diff and the checked paths of runs/<id>/verdict.json. The apply's
// assembly from a record lives here, in the room that applies (apply.h); the command only parses,
// calls it and renders.
#pragma once

#include "base/result.h"
#include "config/config.h"
#include "record/record.h"
#include "unit/publisher.h"

namespace aw {

class Store;

// Only an accepted verdict with a patch is applied; a unit already applied is found by its marker
// and left alone. publishers: how u's repository publishes (the forge's for a github: one, the
// caller's rooms wired in; publisher.h); none of them, or none given, is git's own. With a
// publisher the progress comment ends as `run` would have ended it. u gets the apply's
// notes and is saved in store when anything changed.
Result<Applied> apply_unit(const Config& cfg, Store& store, UnitRecord& u,
                           const OpenPublisher& publishers);

}  // namespace aw
