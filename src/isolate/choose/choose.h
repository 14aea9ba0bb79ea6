// The isolation a config names, picked: the one place that knows every backend (isolate/none,
// isolate/user, isolate/container), so that the pipeline knows only the seam (isolate/isolator.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "isolate/isolator.h"

namespace aw {

// The isolation the config asks for, or an Error that says what is missing and how to fix it
// (policy `required` refuses here).
Result<std::unique_ptr<Isolator>> make_isolator(const Config& cfg, const IsolationSpec& spec,
                                                const std::string& unit_id);

// For the record, after the isolator's sandbox note: where a sandboxed phase's limits come from
// on this machine (isolation none and user; a container's are the engine's).
std::vector<std::string> isolation_notes(const Config& cfg, const std::string& sandbox_note);

// After a crash (unit/recover.cc): what an awaywork that died mid-unit left of its isolation.
// The notes for the record of one interrupted unit whose run folder is run_dir: a user unit's
// folders taken back from the worker (found by the run folder's isolation.json, whatever the
// config says now) and the worker's leftovers swept. None: not a user unit.
std::vector<std::string> reclaim_unit_folders(const Config& cfg, const std::string& run_dir);
// The containers of the units just found interrupted, removed (isolation container): how many.
int remove_leftover_containers(const Config& cfg, const std::vector<std::string>& units);

}  // namespace aw
