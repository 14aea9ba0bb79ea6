// GitLab's progress note: one note on the issue per unit, posted when the unit starts, edited as it
// goes (phase, elapsed) and at its end (the draft merge request, or the state and the redacted
// reason), as forge/progress.h does with a GitHub comment. Found again by its marker, so a unit
// never has two; its text made inert for GitLab (the reason carries the agent's words: no line of
// it may be a quick action). A failure to post or edit is a note in the unit's record, never the
// unit's failure.
//
//   GitLabProgressObserver progress(*session, iid);
//   run_unit(cfg, req, progress, gitlab_publishers(session));
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "record/record.h"
#include "unit/pipeline.h"

namespace aw {

class GitLabProgressNote {
 public:
  // noteable: "issues", or "merge_requests" for a merge request's follow-up (its note is on it).
  GitLabProgressNote(GitLabSession& s, int64_t issue, std::string unit_id,
                     std::string noteable = "issues");
  Status start(const std::string& agent, const std::string& isolation,
               const std::string& sandbox_note);
  // For a later step (`awaywork apply ID`): the head start() wrote, nothing posted yet.
  void resume(const std::string& agent, const std::string& isolation,
              const std::string& sandbox_note);
  Status phase(const std::string& name, int64_t elapsed_seconds);
  Status finish(const std::string& outcome);

 private:
  Status write(const std::string& status);

  GitLabSession& s_;
  int64_t issue_;
  std::string unit_id_, noteable_, head_;
  int64_t id_ = 0;
};

// The note's last words: the draft merge request, else the state and the reason (redacted by the
// caller, sanitized here).
std::string gitlab_progress_outcome(const std::string& mr_url, const std::string& state,
                                    const std::string& reason);

// A unit applied later: its progress note brought to where `run` leaves it (the reason redacted of
// the token). Left alone when it already says so.
Status gitlab_end_progress(GitLabSession& s, const UnitRecord& u, const std::string& mr_url,
                           const std::string& state, const std::string& reason,
                           const std::string& noteable = "issues");

class GitLabProgressObserver : public UnitObserver {
 public:
  GitLabProgressObserver(GitLabSession& s, int64_t issue, std::string noteable = "issues")
      : s_(s), issue_(issue), noteable_(std::move(noteable)) {}
  void started(UnitRecord& u) override;
  void phase_started(UnitRecord& u, const std::string& phase) override;
  void ended(UnitRecord& u, UnitState state, const std::string& reason) override;

 private:
  GitLabSession& s_;
  int64_t issue_;
  std::string noteable_;
  std::optional<GitLabProgressNote> note_;
  std::chrono::steady_clock::time_point began_;
};

}  // namespace aw
