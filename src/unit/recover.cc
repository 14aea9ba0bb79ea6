// After a crash: what an awaywork that died mid-unit left behind is found at the next start.
#include <unistd.h>

#include "base/fs.h"
#include "isolate/container/engine.h"
#include "isolate/user/leftovers.h"
#include "isolate/user/locations.h"
#include "isolate/user/worker_lock.h"
#include "isolate/user/worker_sandbox.h"
#include "proc/runner.h"
#include "record/store.h"
#include "unit/disk_reserve.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

// A container outlives its killed client: remove those of the units just found interrupted. A
// unit's containers all carry its label awaywork.unit=<id>: its phase containers and, under
// network allowlist, its egress bridge (whose proxy died with awaywork: the bridge relays to
// nothing, but it is removed all the same).
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

// A user unit's folders were the worker's when its awaywork died (or the phase's processes still
// run as the worker): kill those, take the folders back, and say so in the record. Found by the
// run folder's isolation.json, whatever the config says now.
void reclaim_user_folders(const Config& cfg, Store& store, const std::vector<std::string>& units) {
  for (const auto& id : units) {
    auto u = store.get(id);
    if (!u || u->run_dir.empty()) continue;
    auto where = read_locations(u->run_dir + "/isolation.json");
    if (!where) continue;  // not a user unit
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
      ::close(*lock);
    }
    u->notes.push_back(note);
    if (!swept.empty()) u->notes.push_back(swept);
    (void)store.save(*u);
  }
}

}  // namespace

int recover_abandoned(const Config& cfg, Store& store) {
  // Processes first: a phase whose keeper died is still running in its cgroup.
  int swept = sweep_orphaned_phases();
  auto marked = store.mark_orphans_interrupted();
  if (!marked) return swept;
  // The room a dead unit kept for its end (unit/disk_reserve.h) is given back.
  for (const auto& id : *marked)
    if (auto u = store.get(id); u && !u->run_dir.empty())
      ::unlink((u->run_dir + "/" + DiskReserve::kFile).c_str());
  reclaim_user_folders(cfg, store, *marked);
  return swept + static_cast<int>(marked->size()) + remove_leftover_containers(cfg, *marked);
}

}  // namespace aw
