// The failing jobs of a merge request's head (issue 29 item 7, `follow_ci: true`), as
// forge/pr_checks.h reads GitHub's failing checks: the merge request's own pipeline (its
// head_pipeline, which GET .../merge_requests/:iid gives; else the newest pipeline on the head
// commit whose ref is the merge request's source branch or refs/merge-requests/IID/head, never
// one of another ref: whoever may run a pipeline can run one on the same commit from another ref,
// with variables, failing jobs and traces of their choosing), its failed jobs that may not fail
// (allow_failure false),
// each with its failure reason and the tail of its trace (GET /projects/:id/jobs/:job_id/trace,
// capped and redacted by pr_checks.h's log_tail; cleaned and fenced by the task, pr_task.h). A
// job's name and trace are text whoever can push a .gitlab-ci.yml has shaped: data, never
// instructions.
//
//   AW_TRY(auto failing, gitlab_failing_jobs(session, mr, mr_json));
//   PullTask t; t.checks = failing;
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/gitlab/session.h"
#include "forge/model.h"
#include "forge/pr_checks.h"

namespace aw {

// Pure: the failing jobs of GET .../pipelines/:id/jobs (kind "job", the job's id and web_url,
// its status as the conclusion, its failure_reason as the summary), each name once (a retried
// job's newest).
Result<std::vector<FailingCheck>> gitlab_failing_jobs_from_json(const nlohmann::json& jobs);

struct GitLabMrPipeline {
  int64_t id = 0;
  std::string status;  // GitLab's: failed, success, running ...
};

// Pure: the merge request's head_pipeline from its GET .../merge_requests/:iid answer (mr_json,
// read into mr by gitlab_mr_from_json), when it is on mr's head commit and of this project; none
// when absent (a list's answer, an older GitLab) or not the head's.
Result<std::optional<GitLabMrPipeline>> gitlab_mr_head_pipeline(const ForgePull& mr,
                                                                const nlohmann::json& mr_json);
// Pure: of GET .../pipelines?sha=SHA (newest first), the newest on mr's head commit whose ref is
// refs/merge-requests/IID/head or (not from a fork) mr's source branch; none when there is none.
Result<std::optional<GitLabMrPipeline>> gitlab_mr_pipeline_from_list(const ForgePull& mr,
                                                                     const nlohmann::json& list);

// Reads the merge request's pipeline (gitlab_mr_head_pipeline, else gitlab_mr_pipeline_from_list)
// and, when it failed, its failing jobs with their traces' tails. mr_json: the merge request's
// single GET answer. A trace that cannot be read leaves a note in its place, never an Error: the
// job still failed. traces false: the jobs' names only, no trace read (watch judging whether to
// start a follow-up needs no more, and each trace is one more request).
Result<std::vector<FailingCheck>> gitlab_failing_jobs(GitLabSession& s, const ForgePull& mr,
                                                      const nlohmann::json& mr_json,
                                                      bool traces = true);

}  // namespace aw
