// The warden of a worker phase. awaywork runs as the owner, so the runner's keeper (proc/) cannot
// signal the worker's processes: without a cgroup it would wait in vain for a process the worker
// left behind. The warden is an owner-side process between the keeper and sudo: it is the phase's
// main process, a child subreaper (the worker's orphans come to it, not to the keeper), and when
// sudo's command ends it kills every process of the worker through the first sudoers rule, proves
// none is left, reaps them, and exits with the command's status. The keeper then finds nothing.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/sandbox/plan.h"
#include "isolate/user/worker.h"
#include "isolate/user/worker_launcher.h"
#include "proc/runner.h"

namespace aw {

// Like make_worker_launcher (worker_launcher.h), with the warden as the main process. When the
// phase left processes of the worker running, the warden writes their count and names to
// `report` (one per line: "N", then distinct names); read it with read_warden_report.
Launcher make_warded_worker_launcher(const WorkerUser& worker, const std::string& report);

// The same with the OS sandbox built by the worker (worker_launcher.h WorkerSandbox). The cgroup
// limits are the owner's side: the warden applies the plan's limits to the phase's cgroup (or
// makes the v1 groups and joins them) before sudo, so the worker's whole tree is inside them;
// the plan the worker reads says apply_limits false.
Launcher make_warded_worker_launcher(const WorkerUser& worker, const std::string& report,
                                     const WorkerSandbox& sandbox, const SandboxPlan& limits);

struct WardenReport {
  int killed = 0;
  std::vector<std::string> names;
  std::string failure;  // the warden could not prove the worker's processes gone
};
// The report of a phase (absent file = nothing was left); the file is removed.
WardenReport read_warden_report(const std::string& report);

}  // namespace aw
