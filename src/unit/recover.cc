// After a crash: what an awaywork that died mid-unit left behind is found at the next start.
#include "proc/runner.h"
#include "record/store.h"
#include "unit/pipeline.h"

namespace aw {

int recover_abandoned(Store& store) {
  // Processes first: a phase whose keeper died is still running in its cgroup.
  int swept = sweep_orphaned_phases();
  auto marked = store.mark_orphans_interrupted();
  return swept + (marked ? *marked : 0);
}

}  // namespace aw
