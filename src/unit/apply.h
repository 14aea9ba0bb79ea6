// Publishing a checked patch: the one place that turns a unit's accepted outputs into a branch,
// used by the pipeline right after the check and by `awaywork apply ID` later. A host's publisher
// (publisher.h) publishes its repositories; git's own publishes the rest.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "check/requests.h"
#include "config/config.h"
#include "git/git.h"
#include "record/record.h"
#include "unit/publisher.h"

namespace aw {

// Git's own publisher: a new branch in the local source (on base_ref when that names one of its
// branches), or pushed to the remote of `publish:` (or a `url:` repository's own), with the
// credential from the secret store through the askpass.
class GitPublisher : public Publisher {
 public:
  Result<Applied> publish(const ApplyInput& in) override;
};

// Through pub; without one, git's own publisher. A repository with a forge (`github:`) needs its
// host's publisher: without it nothing is published.
Result<Applied> apply_checked(const ApplyInput& in, Publisher* pub = nullptr);

// What an apply did, into the record: branch, commit, the pull request, what was posted.
void note_applied(const Applied& a, UnitRecord& u);

// The checked requests kept in runs/<id>/requests.json (for `awaywork apply ID`).
Result<std::vector<Request>> load_checked_requests(const std::string& file);

// For every publisher, the same words: the commit message of a unit's commit (the task's first
// line, sanitized, never a closing keyword's reference), and a title made from the task (a pull
// request's, when the agent asked for none).
std::string commit_message(const ApplyInput& in);
std::string task_title_of(const std::string& prompt, size_t max_chars);

// The askpass git execs for a credential: awaywork itself (git/askpass.cc).
Result<std::string> askpass_program();

}  // namespace aw
