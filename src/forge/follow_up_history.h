// What this machine's record knows of a pull request's (or a merge request's) earlier units, for
// its next follow-up (issues 26 and 29): the opening unit's recorded task, and where the next
// follow-up's task starts. One rule for both forges: the record names the request's address
// (UnitRecord::pull_request) and its branch; the opening unit is the one the branch is named for.
//
//   AW_TRY(t.opening_task, opening_task(cfg, pull));
//   AW_TRY(t.since, follow_up_since(cfg, pull));
//   AW_TRY(auto tried, ci_fixes_tried(cfg, pull, failing_now));   // forge/ci_attempts.h
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "forge/model.h"

namespace aw {

// The recorded task of the unit that opened the pull request, when this machine ran it: its
// record names the pull request's address and the branch named for it (a follow-up's record
// names the same address and branch, but the branch is not named for the follow-up). "" when
// none does. An Error when the state database cannot be read: an empty answer would drop the
// opening unit's task and have the next follow-up quote again what an earlier one read.
Result<std::string> opening_task(const Config& cfg, const ForgePull& pull);

// Where the next follow-up's task starts (PullTask::since): a second before the newest done
// follow-up of this pull request on this machine was created. What was written after its start
// (what watch batched while it ran) asks for work again; what it already read does not, so a
// second follow-up does not redo the first. The second before: a comment of that same second
// is quoted again rather than lost (the forges' times are compared in whole seconds). "" when
// none was done.
Result<std::string> follow_up_since(const Config& cfg, const ForgePull& pull);

// For `follow_up.max_ci_attempts` (forge/ci_attempts.h ci_limit_reached): the done follow-ups of
// this pull request on this machine, oldest first, each as the checks of `failing_now` that its
// task quoted as failing (its record note pr_source.h kFollowUpChecksNote). Done follow-ups are
// those follow_up_since counts: a unit that failed, or made no commit, tried no fix. An Error
// when the state database cannot be read: an empty answer would lift the limit.
Result<std::vector<std::vector<std::string>>> ci_fixes_tried(
    const Config& cfg, const ForgePull& pull, const std::vector<std::string>& failing_now);

}  // namespace aw
