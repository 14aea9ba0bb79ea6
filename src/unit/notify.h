// When a unit starts and after it ends, each notifier plugin the owner declared (issue 28,
// docs/plugins.md) is told, as data: one `unit_started` call, then one `unit_ended` call with the
// outcome, each in awaywork's sandbox with only what the plugin declares (plugin/call.h). A
// notifier's failure never changes the unit's outcome: it is a note in the record, redacted of the
// unit's secrets and of the plugin's own.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "record/record.h"

namespace aw {

// unit_started's params: which unit, on what, from which issue (the forge's words as data).
nlohmann::json unit_started_params(const UnitRecord& u);

// Once the unit's record exists, before any phase: a failed call is a note. Nothing (and no note)
// when plugins are off: the end says so once.
void notify_unit_started(const Config& cfg, UnitRecord& u,
                         const std::vector<std::string>& literals);

// unit_ended's params: the unit's outcome, its own words only (the title and URL are the
// forge's: hostile text, passed on as data). reason is already redacted.
nlohmann::json unit_ended_params(const UnitRecord& u, const std::string& reason);

// Calls every notifier in cfg.plugins (none when plugins.run is off: a note says so). literals:
// what every recorded byte of the unit is redacted of.
void notify_unit_ended(const Config& cfg, UnitRecord& u, const std::string& reason,
                       const std::vector<std::string>& literals);

}  // namespace aw
