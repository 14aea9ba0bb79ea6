// After a crash: what a dead awaywork's units left of their isolation (unit/recover.cc asks).
#include <unistd.h>

#include "base/fs.h"
#include "config/paths.h"
#include "isolate/choose/choose.h"
#include "isolate/container/engine.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/locations.h"
#include "isolate/user/worker_lock.h"
#include "isolate/user/worker_sandbox.h"

namespace aw {

namespace {

// After a reclaim (the worker's processes killed, its folders taken back): what the dead unit's
// worker left in the shared folders goes too, as after every unit.
std::string sweep_after_crash(const UserUnitLocations& where) {
  auto worker = lookup_worker(where.worker);
  if (!worker) return "the worker's leftovers were not swept: " + worker.error().message;
  auto files = WorkerSandboxFiles::make(*worker, self_exe());
  if (!files) return "the worker's leftovers were not swept: " + files.error().message;
  std::vector<std::string> keep;
  for (const auto& f : where.folders) keep.push_back(f.path);
  auto swept = sweep_worker_leftovers(*worker, (*files)->helper(), keep);
  return swept ? describe_sweep(worker->name, *swept)
               : "the worker's leftovers: " + swept.error().message;
}

}  // namespace

// A container outlives its killed client. A unit's containers all carry its label
// awaywork.unit=<id>: its phase containers and, under network allowlist, its egress bridge (whose
// proxy died with awaywork: the bridge relays to nothing, but it is removed all the same).
int remove_leftover_containers(const Config& cfg, const std::vector<std::string>& units) {
  if (cfg.isolation != Isolation::container || units.empty()) return 0;
  auto engine = find_engine(cfg.container_engine);
  if (!engine) return 0;  // doctor reports an engine that does not answer
  int removed = 0;
  for (const auto& id : units) {
    auto names = containers_of_unit(*engine, id);
    if (!names) continue;
    for (const auto& n : *names) removed += remove_container(*engine, n) ? 1 : 0;
  }
  return removed;
}

// A user unit's folders were the worker's when its awaywork died (or the phase's processes still
// run as the worker): kill those, take the folders back, and say so.
std::vector<std::string> reclaim_unit_folders(const Config& cfg, const std::string& run_dir) {
  auto where = read_locations(run_dir + "/isolation.json");
  if (!where) return {};  // not a user unit
  std::string note, swept;
  auto lock = lock_worker(state_dir_of(cfg), where->worker);
  if (!lock) {
    std::string paths;
    for (const auto& f : where->folders) paths += " " + f.path;
    note = fmt::format(
        "its folders were not taken back ({}); once that unit ends: sudo -n "
        "chown -R -h -P {}:{} FOLDER, for each of{}",
        lock.error().message, ::getuid(), ::getgid(), paths);
  } else {
    auto said = reclaim_abandoned(*where, ::getuid(), ::getgid());
    note = said ? "recovered: " + *said : "recovery failed: " + said.error().message;
    if (said) swept = sweep_after_crash(*where);
    unlock_worker(*lock);
  }
  std::vector<std::string> notes{note};
  if (!swept.empty()) notes.push_back(swept);
  return notes;
}

}  // namespace aw
