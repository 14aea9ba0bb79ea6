// The forge's observer of a unit from an issue: its progress comment (progress.h) posted when the
// unit starts, edited at each phase (with the time since the start) and at its end. A comment
// that could not be written is a note in the unit's record, never the unit's failure.
//
//   ProgressObserver progress(*session, issue);
//   Observers obs({&display, &progress});
//   run_unit(cfg, req, obs, forge_publishers(cfg, session));
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "forge/progress.h"
#include "forge/session.h"
#include "unit/pipeline.h"

namespace aw {

class ProgressObserver : public UnitObserver {
 public:
  ProgressObserver(ForgeSession& s, int64_t issue) : s_(s), issue_(issue) {}
  void started(UnitRecord& u) override;
  void phase_started(UnitRecord& u, const std::string& phase) override;
  void ended(UnitRecord& u, UnitState state, const std::string& reason) override;

 private:
  ForgeSession& s_;
  int64_t issue_;
  std::optional<ProgressComment> comment_;  // once the unit exists (its id names the comment)
  std::chrono::steady_clock::time_point began_;
};

}  // namespace aw
