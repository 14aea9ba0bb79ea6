// The progress comment: one comment on the issue per unit, posted when the unit starts (unit id,
// agent, isolation, the sandbox as published_sandbox says it), edited as it goes (phase,
// elapsed) and at its end (the pull request, or the state and the redacted reason). Found again
// by its marker, so a unit never has two. A failure to post or edit is the caller's note, never
// the unit's failure.
//
//   ProgressComment pc(session, issue, unit_id);
//   pc.start("claude", "user", u.sandbox);  pc.phase("agent", 12);  pc.finish("Draft: URL");
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "forge/progress_post.h"
#include "forge/session.h"
#include "record/record.h"

namespace aw {

class ProgressComment : public ProgressPost {
 public:
  ProgressComment(ForgeSession& s, int64_t issue, std::string unit_id);
  int64_t id() const { return id_; }

 private:
  Status write(const std::string& status) override;
  Status find_or_post(const std::string& body);

  ForgeSession& s_;
  int64_t issue_;
  int64_t id_ = 0;
};

// The progress comment's last words: the draft pull request, else the unit's state and its
// reason (already redacted by the caller; sanitized here like any text sent to the forge).
std::string progress_outcome(const std::string& pull_url, const std::string& state,
                             const std::string& reason);

// A unit from an issue applied later (`awaywork apply ID`, `apply --from`): its progress comment
// brought to its final state as `run` leaves it at its end: the pull request, else the state and
// the reason, redacted of the forge token. Found by its marker; left alone when it already says so.
Status end_progress(ForgeSession& s, const UnitRecord& u, const std::string& pull_url,
                    const std::string& state, const std::string& reason);

}  // namespace aw
