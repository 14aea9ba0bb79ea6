// After a crash: what an awaywork that died mid-unit left behind is found at the next start.
#include <unistd.h>

#include "base/fs.h"
#include "isolate/choose/choose.h"
#include "proc/runner.h"
#include "record/store.h"
#include "unit/disk_reserve.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

// Each interrupted unit's isolation is asked what it left (a user unit's folders, taken back),
// and its record gets the answer.
void reclaim_folders(const Config& cfg, Store& store, const std::vector<std::string>& units) {
  for (const auto& id : units) {
    auto u = store.get(id);
    if (!u || u->run_dir.empty()) continue;
    auto notes = reclaim_unit_folders(cfg, u->run_dir);
    if (notes.empty()) continue;  // not a user unit
    for (auto& n : notes) u->notes.push_back(std::move(n));
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
  reclaim_folders(cfg, store, *marked);
  return swept + static_cast<int>(marked->size()) + remove_leftover_containers(cfg, *marked);
}

}  // namespace aw
