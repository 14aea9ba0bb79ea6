#include "forge/actions.h"

#include <fmt/format.h>

namespace aw {

namespace {

using nlohmann::json;

std::string str(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

Result<WorkflowRun> dispatch_workflow(ForgeSession& s, const std::string& workflow,
                                      const std::string& ref,
                                      const std::map<std::string, std::string>& inputs) {
  std::string target =
      fmt::format("/repos/{}/actions/workflows/{}/dispatches", s.owner_repo, workflow);
  json body = {{"ref", ref}, {"inputs", inputs}, {"return_run_details", true}};
  AW_TRY(ApiReply r, s.gh.call("POST", target, &body));
  if (r.status == 204)
    return fail(
        "{} dispatched workflow {} but did not name the run (a GitHub Enterprise Server before "
        "return_run_details?); run_on: actions needs the run's id to follow it",
        s.owner_repo, workflow);
  if (r.status != 200)
    return fail(
        "dispatching workflow {} on {}: {}; it must exist on {} with a workflow_dispatch "
        "trigger (docs/scale-out.md), and the token needs actions: write",
        workflow, ref, s.gh.describe("POST", target, r), ref);
  WorkflowRun run;
  if (r.body.contains("workflow_run_id") && r.body["workflow_run_id"].is_number_integer())
    run.id = r.body["workflow_run_id"].get<int64_t>();
  run.html_url = str(r.body, "html_url");
  run.status = "queued";
  if (run.id <= 0)
    return fail("dispatching workflow {}: GitHub's answer has no workflow_run_id", workflow);
  return run;
}

Result<WorkflowRun> get_workflow_run(ForgeSession& s, int64_t id) {
  AW_TRY(json j, s.gh.get(fmt::format("/repos/{}/actions/runs/{}", s.owner_repo, id)));
  WorkflowRun run;
  run.id = id;
  run.html_url = str(j, "html_url");
  run.status = str(j, "status");
  run.conclusion = str(j, "conclusion");
  if (run.status.empty()) return fail("workflow run {} of {} has no status", id, s.owner_repo);
  return run;
}

std::string unit_artifact_name(const std::string& unit_id) {
  return "awaywork-unit-" + unit_id;
}

std::string pull_artifact_name(const std::string& unit_id, int64_t pull) {
  return fmt::format("awaywork-pull-{}-{}", unit_id, pull);
}

Result<std::vector<int64_t>> runs_with_artifact(ForgeSession& s, const std::string& name) {
  // The name is a unit id's ([a-z0-9-], forge/marker.h's caller checks it): nothing to escape.
  std::string target =
      fmt::format("/repos/{}/actions/artifacts?name={}&per_page=100", s.owner_repo, name);
  AW_TRY(json j, s.gh.get(target));
  if (!j.is_object() || !j.contains("artifacts") || !j["artifacts"].is_array())
    return fail("GitHub GET {}: expected {{\"artifacts\": [...]}}, got {}", target, j.type_name());
  std::vector<int64_t> runs;
  for (const json& a : j["artifacts"]) {
    // GitHub's name filter is exact; a fake or a proxy that is not is not trusted for it.
    if (!a.is_object() || str(a, "name") != name || !a.contains("workflow_run") ||
        !a["workflow_run"].is_object())
      continue;
    const json& run = a["workflow_run"];
    if (run.contains("id") && run["id"].is_number_integer())
      runs.push_back(run["id"].get<int64_t>());
  }
  return runs;
}

std::string describe_run(const WorkflowRun& r) {
  if (r.status != "completed") return r.status == "in_progress" ? "in progress" : r.status;
  return r.conclusion == "success" ? "succeeded" : fmt::format("failed ({})", r.conclusion);
}

}  // namespace aw
