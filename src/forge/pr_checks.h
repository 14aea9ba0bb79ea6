// The failing checks of a pull request's head commit (issue 26, `follow_ci: true`): GitHub's
// check runs whose conclusion is a failure (failure, timed_out, cancelled, action_required,
// startup_failure, stale) and commit statuses in state failure or error, each with what a
// follow-up's task quotes of it: its annotations (capped) and, for a GitHub Actions job, the tail
// of its log (capped and redacted here; cleaned and fenced by the task, pr_task.h). Every word of
// it is text that whoever can push a workflow or post a status has shaped: data, never
// instructions.
//
//   AW_TRY(auto failing, read_failing_checks(session, pull.head_sha, pull.base_ref, true));
//   PullTask t; t.checks = failing;
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace aw {

struct ForgeSession;  // forge/session.h; this header stays light: the pure task (pr_task.h) uses it

struct FailingCheck {
  std::string kind;        // "check run" or "status"
  std::string name;        // the check run's name or the status's context
  std::string conclusion;  // failure, timed_out, cancelled, ...; a status's failure or error
  int64_t id = 0;          // the check run's id (an Actions job's id too); 0 for a status
  int64_t app_id = 0;      // the app that made the check run; 0 for a status
  bool actions = false;    // made by GitHub Actions: a job with a log
  std::string url;         // details_url or target_url
  std::string summary;     // the check run's output title, or the status's description
  std::vector<std::string> annotations;  // "path:line (level) title: message", at most kMax...
  int annotations_left_out = 0;
  std::string log_tail;  // the end of the job's log, redacted, at most kMaxLogTail bytes
  bool log_cut = false;  // the log was longer
};

inline constexpr size_t kMaxAnnotations = 20;
inline constexpr size_t kMaxLogTail = 16 * 1024;

// A check run's conclusion that a follow-up fixes.
bool failing_conclusion(std::string_view conclusion);

// Pure: the failing checks of GET .../commits/SHA/check-runs (null: not read) and of GET
// .../commits/SHA/status (the combined status; null: not read), check runs first, each name once
// (GitHub's filter=latest gives a name's newest run; a status's newest per context).
Result<std::vector<FailingCheck>> failing_checks_from_json(const nlohmann::json& check_runs,
                                                           const nlohmann::json& combined);

// A status check a branch protection rule or a ruleset requires (GitHub's required_status_checks
// `checks`, or a ruleset rule's `required_status_checks`): a check run's name or a status's
// context, from one app (app_id, a ruleset's integration_id), or from any (-1: GitHub's null, an
// absent integration_id, and every legacy `contexts` entry).
struct RequiredCheck {
  std::string context;
  int64_t app_id = -1;
};

// Pure: the required checks of the base branch, from GET /repos/O/R/branches/B (its
// `protected` and `protection.required_status_checks`). Empty when the branch is not protected,
// requires no check, or enforces none (enforcement_level "off").
Result<std::vector<RequiredCheck>> required_checks_from_json(const nlohmann::json& branch);

// Pure: the required checks of the branch's repository rulesets, from GET
// /repos/O/R/rules/branches/B (GitHub's active rules on the branch, from the repository's and its
// organization's rulesets; "evaluate" and "disabled" ones are not listed): each
// `required_status_checks` rule's contexts, from one app (integration_id) or, without one, from
// any (-1). Empty when no rule requires a check.
Result<std::vector<RequiredCheck>> ruleset_checks_from_json(const nlohmann::json& rules);

// Pure: every check either list requires, each (context, app) once. A pull request merges only
// when branch protection's and every ruleset's required checks pass, so a check is required when
// any of them names it.
std::vector<RequiredCheck> required_union(std::vector<RequiredCheck> a,
                                          const std::vector<RequiredCheck>& b);

// Pure: the failing checks a required check names (a check run by name and app; a status by
// context only when the rule names no app: a status's app is not known, and anyone with
// statuses:write may post one of any name); every failing check when nothing is required, as a
// repository without branch protection merges whatever fails.
std::vector<FailingCheck> only_required(std::vector<FailingCheck> failing,
                                        const std::vector<RequiredCheck>& required);

// The end of a log: at most `cap` bytes, from a line's start (a UTF-8 character's at least),
// redacted of secret-shaped tokens and of `literals` (the forge's token). cut: it was longer.
std::string log_tail(std::string_view log, size_t cap, const std::vector<std::string>& literals,
                     bool* cut = nullptr);

// Reads the head's failing checks, only the required ones when base_ref's protection or its
// rulesets require checks (GET .../branches/BASE and GET .../rules/branches/BASE, both readable
// with read access, asked only when a check fails; empty base_ref: every failing check, unread);
// with details, also each check run's annotations and each
// Actions job's log (GET .../actions/jobs/ID/logs answers 302 to a short-lived URL, which is
// fetched without the token, as GitHub's own clients do). A log or annotations that cannot be
// read leave a note in their place, never an Error: the check still failed.
Result<std::vector<FailingCheck>> read_failing_checks(ForgeSession& s, const std::string& sha,
                                                      const std::string& base_ref, bool details);

}  // namespace aw
