// isolation user, for `awaywork probe` (cli/probe_user.h): the isolator a unit gets, but gated
// only on what the handoff itself needs. The probe exists to show what doctor's other failures
// (the owner's home open, the env file readable, PATH under the home) let the worker read, so
// those do not stop it; they come back in `warnings`, each with its fix.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "unit/isolator.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_user_isolator_for_probe(const Config& cfg,
                                                               const std::string& unit_id,
                                                               std::vector<std::string>* warnings);

}  // namespace aw
