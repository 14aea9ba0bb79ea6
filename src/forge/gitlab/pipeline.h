// The failing jobs of a merge request's head (issue 29 item 7, `follow_ci: true`), as
// forge/pr_checks.h reads GitHub's failing checks: the newest pipeline on the head commit
// (GET /projects/:id/pipelines?sha=SHA), its failed jobs that may not fail (allow_failure false),
// each with its failure reason and the tail of its trace (GET /projects/:id/jobs/:job_id/trace,
// capped and redacted by pr_checks.h's log_tail; cleaned and fenced by the task, pr_task.h). A
// job's name and trace are text whoever can push a .gitlab-ci.yml has shaped: data, never
// instructions.
//
//   AW_TRY(auto failing, gitlab_failing_jobs(session, mr.head_sha));
//   PullTask t; t.checks = failing;
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/pr_checks.h"

namespace aw {

// Pure: the failing jobs of GET .../pipelines/:id/jobs (kind "job", the job's id and web_url,
// its status as the conclusion, its failure_reason as the summary), each name once (a retried
// job's newest).
Result<std::vector<FailingCheck>> gitlab_failing_jobs_from_json(const nlohmann::json& jobs);

// Reads the head's newest pipeline and, when it failed, its failing jobs with their traces' tails.
// A trace that cannot be read leaves a note in its place, never an Error: the job still failed.
// traces false: the jobs' names only, no trace read (watch judging whether to start a follow-up
// needs no more, and each trace is one more request).
Result<std::vector<FailingCheck>> gitlab_failing_jobs(GitLabSession& s, const std::string& sha,
                                                      bool traces = true);

}  // namespace aw
