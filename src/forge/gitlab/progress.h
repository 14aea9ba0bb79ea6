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

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/progress_post.h"
#include "record/record.h"
#include "unit/pipeline.h"

namespace aw {

class GitLabProgressNote : public ProgressPost {
 public:
  // noteable: "issues", or "merge_requests" for a merge request's follow-up (its note is on it).
  GitLabProgressNote(GitLabSession& s, int64_t issue, std::string unit_id,
                     std::string noteable = "issues");

 private:
  Status write(const std::string& status) override;

  GitLabSession& s_;
  int64_t issue_;
  std::string noteable_;
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

class GitLabProgressObserver : public ProgressPostObserver {
 public:
  GitLabProgressObserver(GitLabSession& s, int64_t issue, std::string noteable = "issues")
      : ProgressPostObserver("progress note"),
        s_(s),
        issue_(issue),
        noteable_(std::move(noteable)) {}

 private:
  std::unique_ptr<ProgressPost> open(const std::string& unit_id) override {
    return std::make_unique<GitLabProgressNote>(s_, issue_, unit_id, noteable_);
  }
  std::string outcome(const std::string& url, const std::string& state,
                      const std::string& reason) const override {
    return gitlab_progress_outcome(url, state, reason);
  }

  GitLabSession& s_;
  int64_t issue_;
  std::string noteable_;
};

}  // namespace aw
