#include "forge/gitlab/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "check/redact.h"
#include "forge/json_fields.h"

namespace aw {

using nlohmann::json;

Result<std::vector<FailingCheck>> gitlab_failing_jobs_from_json(const json& jobs) {
  if (!jobs.is_array()) return fail("GET jobs: expected a list, got {}", jobs.type_name());
  std::vector<FailingCheck> out;
  std::vector<int64_t> newest;  // by name: the highest job id (a retry is a new job)
  for (size_t k = 0; k < jobs.size(); ++k) {
    const json& j = jobs[k];
    std::string at = fmt::format("GET jobs [{}]", k);
    AW_CHECK(forge_field::object(j, at));
    AW_TRY(std::string status, forge_field::str(j, "status", at, true));
    // GitLab's failed states; canceled is a person's or a newer pipeline's doing, not a failure.
    if (status != "failed" || forge_field::flag(j, "allow_failure")) continue;
    FailingCheck f;
    f.kind = "job";
    AW_TRY(f.id, forge_field::integer(j, "id", at));
    AW_TRY(f.name, forge_field::str(j, "name", at, true));
    AW_TRY(std::string stage, forge_field::str(j, "stage", at, false));
    AW_TRY(f.url, forge_field::str(j, "web_url", at, false));
    AW_TRY(f.summary, forge_field::str(j, "failure_reason", at, false));
    if (!stage.empty())
      f.summary =
          f.summary.empty() ? "stage " + stage : fmt::format("stage {}; {}", stage, f.summary);
    f.conclusion = status;
    f.actions = true;  // it has a trace
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const FailingCheck& o) { return o.name == f.name; });
    if (same == out.end()) {
      out.push_back(std::move(f));
    } else if (f.id > same->id) {
      *same = std::move(f);
    }
  }
  return out;
}

namespace {

// "#ID" as gitlab_mr_from_json writes a project id (ForgePull::head_repo, base_repo).
std::string project_tag(const json& j) {
  auto id = j.find("project_id");
  return id != j.end() && id->is_number_integer() ? fmt::format("#{}", id->get<int64_t>()) : "";
}

}  // namespace

Result<std::optional<GitLabMrPipeline>> gitlab_mr_head_pipeline(const ForgePull& mr,
                                                                const json& mr_json) {
  auto hp = mr_json.find("head_pipeline");
  if (hp == mr_json.end() || hp->is_null()) return std::optional<GitLabMrPipeline>{};
  std::string at = "GET merge request " + std::to_string(mr.number) + " .head_pipeline";
  AW_CHECK(forge_field::object(*hp, at));
  GitLabMrPipeline p;
  AW_TRY(p.id, forge_field::integer(*hp, "id", at));
  AW_TRY(p.status, forge_field::str(*hp, "status", at, false));
  AW_TRY(std::string sha, forge_field::str(*hp, "sha", at, false));
  // Another commit's (the head moved since GitLab chose it), or a fork's project's (its jobs are
  // not this project's to read): not the head's pipeline here.
  std::string project = project_tag(*hp);
  if (sha != mr.head_sha || (!project.empty() && project != mr.base_repo))
    return std::optional<GitLabMrPipeline>{};
  return std::optional<GitLabMrPipeline>{std::move(p)};
}

Result<std::optional<GitLabMrPipeline>> gitlab_mr_pipeline_from_list(const ForgePull& mr,
                                                                     const json& list) {
  if (!list.is_array()) return fail("GET pipelines: expected a list, got {}", list.type_name());
  // The merge request's own refs: its merge request ref, and its source branch when that branch
  // is in this project (a fork's branch of that name here is someone else's).
  std::string mr_ref = fmt::format("refs/merge-requests/{}/head", mr.number);
  bool same_project = !mr.base_repo.empty() && mr.head_repo == mr.base_repo;
  for (size_t k = 0; k < list.size(); ++k) {  // newest first
    std::string at = fmt::format("GET pipelines [{}]", k);
    AW_CHECK(forge_field::object(list[k], at));
    AW_TRY(std::string ref, forge_field::str(list[k], "ref", at, false));
    AW_TRY(std::string sha, forge_field::str(list[k], "sha", at, false));
    if (sha != mr.head_sha) continue;
    if (ref != mr_ref && !(same_project && !mr.head_ref.empty() && ref == mr.head_ref)) continue;
    GitLabMrPipeline p;
    AW_TRY(p.id, forge_field::integer(list[k], "id", at));
    AW_TRY(p.status, forge_field::str(list[k], "status", at, false));
    return std::optional<GitLabMrPipeline>{std::move(p)};
  }
  return std::optional<GitLabMrPipeline>{};
}

Result<std::vector<FailingCheck>> gitlab_failing_jobs(GitLabSession& s, const ForgePull& mr,
                                                      const json& mr_json, bool traces) {
  // The merge request's own pipeline, never merely the newest on its head commit: anyone who may
  // run a pipeline can run one on the same commit from another ref, with variables, failing jobs
  // and traces of their choosing.
  AW_TRY(std::optional<GitLabMrPipeline> pipeline, gitlab_mr_head_pipeline(mr, mr_json));
  if (!pipeline) {
    std::string pipes =
        fmt::format("{}/pipelines?sha={}&per_page=100", s.project_target(), mr.head_sha);
    AW_TRY(json list, s.gl.get(pipes));
    AW_TRY(pipeline, with_context(gitlab_mr_pipeline_from_list(mr, list), "GET " + pipes));
  }
  if (!pipeline) return std::vector<FailingCheck>{};
  int64_t id = pipeline->id;
  const std::string& status = pipeline->status;
  if (status != "failed") return std::vector<FailingCheck>{};  // passing, or still running
  std::string jobs_target =
      fmt::format("{}/pipelines/{}/jobs?scope[]=failed&per_page=100", s.project_target(), id);
  AW_TRY(json jobs, s.gl.get_all(jobs_target));
  AW_TRY(std::vector<FailingCheck> failing, gitlab_failing_jobs_from_json(jobs));
  if (!traces) return failing;
  for (FailingCheck& f : failing) {
    auto trace = s.gl.get_text(fmt::format("{}/jobs/{}/trace", s.project_target(), f.id));
    if (trace)
      f.log_tail = log_tail(*trace, kMaxLogTail, {s.token}, &f.log_cut);
    else
      f.log_tail = "(awaywork could not read this job's trace: " +
                   redact_all(trace.error().message, {s.token}) + ")";
  }
  return failing;
}

}  // namespace aw
