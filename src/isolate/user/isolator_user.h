// isolation user (isolator_user.cc): the phases run as the worker Unix user.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_user_isolator(const Config& cfg, const IsolationSpec& spec,
                                                     const std::string& unit_id);

// For `awaywork probe` (isolate/probe/probe_user.h): the isolator a unit gets, but gated only on
// what the handoff itself needs. The probe exists to show what doctor's other failures (the
// owner's home open, the env file readable, PATH under the home) let the worker read, so those
// do not stop it; they come back in `warnings`, each with its fix.
Result<std::unique_ptr<Isolator>> make_user_isolator_for_probe(const Config& cfg,
                                                               const std::string& unit_id,
                                                               std::vector<std::string>* warnings);

}  // namespace aw
