// The forge's observer of a unit from an issue: its progress comment (progress.h) posted when the
// unit starts, edited at each phase (with the time since the start) and at its end. A comment
// that could not be written is a note in the unit's record, never the unit's failure.
//
//   ProgressObserver progress(*session, issue);
//   Observers obs({&display, &progress});
//   run_unit(cfg, req, obs, forge_publishers(cfg, session));
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "forge/progress.h"
#include "forge/progress_post.h"
#include "forge/session.h"

namespace aw {

class ProgressObserver : public ProgressPostObserver {
 public:
  ProgressObserver(ForgeSession& s, int64_t issue)
      : ProgressPostObserver("progress comment"), s_(s), issue_(issue) {}

 private:
  std::unique_ptr<ProgressPost> open(const std::string& unit_id) override {
    return std::make_unique<ProgressComment>(s_, issue_, unit_id);
  }
  std::string outcome(const std::string& url, const std::string& state,
                      const std::string& reason) const override {
    return progress_outcome(url, state, reason);
  }

  ForgeSession& s_;
  int64_t issue_;
};

}  // namespace aw
