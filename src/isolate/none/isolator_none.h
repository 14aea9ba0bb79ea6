// isolation none: the phases run as the owner, in the unit's run folder, with the OS sandbox over
// them when the config asks for it and the machine can build it (isolate/sandbox/sandbox.h).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"

namespace aw {

Result<std::unique_ptr<Isolator>> make_none_isolator(const Config& cfg, const IsolationSpec& spec,
                                                     const std::string& unit_id);

}  // namespace aw
