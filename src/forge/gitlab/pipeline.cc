#include "forge/gitlab/pipeline.h"

#include <fmt/format.h>

#include <algorithm>

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

Result<std::vector<FailingCheck>> gitlab_failing_jobs(GitLabSession& s, const std::string& sha,
                                                      bool traces) {
  std::string pipes = fmt::format("{}/pipelines?sha={}&per_page=1", s.project_target(), sha);
  AW_TRY(json list, s.gl.get(pipes));
  if (!list.is_array()) return fail("GET {}: expected a list", pipes);
  if (list.empty()) return std::vector<FailingCheck>{};
  AW_TRY(int64_t id, forge_field::integer(list[0], "id", "GET " + pipes + " [0]"));
  AW_TRY(std::string status, forge_field::str(list[0], "status", "GET " + pipes + " [0]", false));
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
