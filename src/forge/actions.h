// GitHub Actions through the REST API, for `watch` with `run_on: actions` (docs/scale-out.md):
// dispatch the repository's awaywork workflow for an issue (input issue) or a follow-up of a pull
// request (input pull-request) and follow the run it made.
//
//   AW_TRY(WorkflowRun run, dispatch_workflow(session, "awaywork.yml", "main", {{"issue", "7"}}));
//   AW_TRY(run, get_workflow_run(session, run.id));   // status queued -> in_progress -> completed
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/session.h"

namespace aw {

struct WorkflowRun {
  int64_t id = 0;
  std::string html_url;
  std::string status;      // queued, in_progress, completed (also waiting, pending, requested)
  std::string conclusion;  // once completed: success, failure, cancelled, timed_out, ...
};

// POST /repos/O/R/actions/workflows/FILE/dispatches {"ref", "inputs", "return_run_details": true}:
// GitHub answers 200 with the run's id and URLs. Input values are strings, as GitHub wants them.
Result<WorkflowRun> dispatch_workflow(ForgeSession& s, const std::string& workflow,
                                      const std::string& ref,
                                      const std::map<std::string, std::string>& inputs);

// GET /repos/O/R/actions/runs/ID.
Result<WorkflowRun> get_workflow_run(ForgeSession& s, int64_t id);

// The artifact the reusable workflow's agent job uploads for unit UNIT_ID
// (.github/workflows/awaywork.yml): on GitHub only that run's own jobs can upload an artifact to
// it, so the name ties the unit to the run watch dispatched.
std::string unit_artifact_name(const std::string& unit_id);

// The artifact the reusable workflow's apply job uploads once `apply --from` opened pull request
// PULL for unit UNIT_ID, "awaywork-pull-UNIT_ID-PULL" (only then: not for a follow-up's run, whose
// apply pushes to a pull request that exists, nor when the check refused or apply failed, where
// awaywork-unit-UNIT_ID is still uploaded). Its name is the proof `watch` asks for that this run
// opened this pull request (watch/watcher_actions_own.cc). The number holds no `-`: a name is
// one (unit, number) only, the number after its last `-`.
std::string pull_artifact_name(const std::string& unit_id, int64_t pull);

// The runs that hold an artifact of exactly this name: GET /repos/O/R/actions/artifacts?name=NAME
// (its first 100, newest first: one per run of the unit, and a unit runs once).
Result<std::vector<int64_t>> runs_with_artifact(ForgeSession& s, const std::string& name);

// "queued", "in progress", "succeeded", "failed (failure)", for a status line.
std::string describe_run(const WorkflowRun& r);

}  // namespace aw
