// The loop guard of `follow_up.max_ci_attempts` (issue 26, `follow_ci: true`), one rule for its
// two counters: a check that has stayed failing after max_ci_attempts fixes in a row is not fixed
// again, and awaywork says so once on the pull request, marked `item=ci-limit`. watch counts the
// heads a check failed on (watch/triggers_ci.h, in its state database: the first failing head,
// then one per fix); `run --pr` counts this machine's recorded follow-ups whose task quoted the
// check (forge/follow_up_history.h), so a hand-run follow-up honours the limit without watch.
// Nothing here reads the record; within_ci_limit talks to the forge only through its caller's post.
//
//   if (auto stop = ci_limit_reached(attempts, failing_now, max)) refuse, and say it once
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "forge/model.h"

namespace aw {

// The rule itself: a check still failing after `fixes_in_a_row` follow-ups in a row that each
// tried to fix it has spent the limit when they are max_attempts or more.
bool ci_attempts_spent(int fixes_in_a_row, int max_attempts);

struct CiLimit {
  std::string check;  // the check that spent the limit (its name as the forge gives it)
  int fixes = 0;      // the follow-ups in a row that tried to fix it
};

// The rule over a pull request's done follow-ups, oldest first: for each, the checks its task
// quoted as failing. A check of failing_now (failing on the head now) that each of the newest
// follow-ups in a row quoted, at least max_attempts of them, has spent the limit: the first such
// check of failing_now. A follow-up that did not quote the check (it passed then, or the
// follow-up was for a review alone) ends its count. nullopt when none has.
std::optional<CiLimit> ci_limit_reached(const std::vector<std::vector<std::string>>& attempts,
                                        const std::vector<std::string>& failing_now,
                                        int max_attempts);

// Whether name is one item of list, the record note's ", "-joined names (pr_source.h
// kFollowUpChecksNote). Matched whole, against the items' boundaries, not by splitting: a check's
// name is the workflow's text and may itself hold ", ".
bool named_in_check_list(std::string_view list, std::string_view name);

// A check's name as awaywork may write it in its own comment: the name is the workflow's text, so
// only letters, digits and " ._/:()-" are kept (others become '?'), capped at 100 bytes.
std::string ci_name_for_post(const std::string& name);

// The marker of the one comment saying the limit is reached on pull request `number`, the same
// for watch and run --pr: either finding it on the pull request (by awaywork's login) says no more.
std::string ci_limit_marker(int64_t number);

// What that comment says (before its marker): `check` as ci_name_for_post writes it, `fixes` the
// follow-ups in a row that left it failing, `max` the repository's limit.
std::string ci_limit_comment(const std::string& check, int fixes, int max);

// `run --pr`'s guard, one for both forges (GitHub's pull requests, GitLab's merge requests): when
// ci_limit_reached(tried, failing_now, max_attempts) stops, an Error saying so, and the one
// marked comment (ci_limit_marker(number)) is posted through `post` unless a comment of the
// conversation by self_login already carries that marker. post gets the text and its marker
// apart, so a forge can make the text inert before it marks it (GitLab). A failed post is named
// in the refusal, never retried here. `request` names the request in the refusal ("pull request",
// "merge request"). Success when the limit is not reached.
using PostCiLimit = std::function<Status(const std::string& text, const std::string& marker)>;
Status within_ci_limit(const std::vector<std::vector<std::string>>& tried,
                       const std::vector<std::string>& failing_now, int max_attempts,
                       int64_t number, const std::vector<ForgeComment>& conversation,
                       const std::string& self_login, std::string_view request,
                       const PostCiLimit& post);

}  // namespace aw
