// After a crash: what an awaywork that died mid-unit left behind is found at the next start.
#include "isolate/container/engine.h"
#include "proc/runner.h"
#include "record/store.h"
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

}  // namespace

int recover_abandoned(const Config& cfg, Store& store) {
  // Processes first: a phase whose keeper died is still running in its cgroup.
  int swept = sweep_orphaned_phases();
  auto marked = store.mark_orphans_interrupted();
  if (!marked) return swept;
  return swept + static_cast<int>(marked->size()) + remove_leftover_containers(cfg, *marked);
}

}  // namespace aw
