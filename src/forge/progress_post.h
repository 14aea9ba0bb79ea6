// A unit's progress post, as GitHub's comment (forge/progress.h) and GitLab's note
// (forge/gitlab/progress.h) both keep it: one post per unit, written when the unit starts (its
// head: unit id, agent, isolation, sandbox), at each phase (with the time since the start) and at
// its end. Each forge says only how one write reaches it (find by marker, post or edit); the head,
// the steps and the observer that turns a failed write into a note in the unit's record are here.
//
//   class Comment : public ProgressPost { Status write(const std::string& status) override; };
//   class Observer : public ProgressPostObserver { open(unit_id), outcome(url, state, reason) };
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "record/record.h"
#include "unit/pipeline.h"

namespace aw {

// The words both forges' progress text share: the head naming the unit, a phase's status, and an
// end without a pull request (the reason, redacted by the caller, sanitized here).
std::string progress_head(const std::string& unit_id, const std::string& agent,
                          const std::string& isolation, const std::string& sandbox_note);
std::string progress_phase_status(const std::string& name, int64_t elapsed_seconds);
std::string progress_ended(const std::string& state, const std::string& reason);

class ProgressPost {
 public:
  virtual ~ProgressPost() = default;
  // sandbox_note: the record's (UnitRecord::sandbox); the post says only what published_sandbox
  // (forge/publish.h) makes of it.
  Status start(const std::string& agent, const std::string& isolation,
               const std::string& sandbox_note);
  // For a later step (`awaywork apply ID`): the same head as start() wrote, nothing posted yet;
  // the next write finds the unit's post by its marker (and leaves it when unchanged).
  void resume(const std::string& agent, const std::string& isolation,
              const std::string& sandbox_note);
  Status phase(const std::string& name, int64_t elapsed_seconds);
  Status finish(const std::string& outcome);

 protected:
  explicit ProgressPost(std::string unit_id) : unit_id_(std::move(unit_id)) {}
  // The post's text for status: the head, then the status after a blank line (if any).
  std::string text(const std::string& status) const {
    return head_ + (status.empty() ? "" : "\n\n" + status);
  }

  std::string unit_id_;

 private:
  // The forge's one write of text(status), marked with the unit's progress marker.
  virtual Status write(const std::string& status) = 0;

  std::string head_;
};

// The observer of a unit that keeps its progress post: opened when the unit starts (its id names
// the post), written at each phase and at the end. A post that could not be written is a note
// "<what> (start|phase|end): ..." in the unit's record, never the unit's failure.
class ProgressPostObserver : public UnitObserver {
 public:
  void started(UnitRecord& u) override;
  void phase_started(UnitRecord& u, const std::string& phase) override;
  void ended(UnitRecord& u, UnitState state, const std::string& reason) override;

 protected:
  explicit ProgressPostObserver(const char* what) : what_(what) {}  // "progress comment"

 private:
  virtual std::unique_ptr<ProgressPost> open(const std::string& unit_id) = 0;
  // The post's last words: the draft pull (merge) request at url, else the state and reason.
  virtual std::string outcome(const std::string& url, const std::string& state,
                              const std::string& reason) const = 0;
  void note(UnitRecord& u, const Status& s, const char* when) const;

  const char* what_;
  std::unique_ptr<ProgressPost> post_;
  std::chrono::steady_clock::time_point began_;
};

}  // namespace aw
