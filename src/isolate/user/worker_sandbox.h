// The files the OS sandbox over isolation user needs outside the worker's reach: the helper that
// builds the sandbox as the worker (`awaywork __sandbox-exec`) and each phase's plan. They live in
// a folder of the owner's, /tmp/awaywork-helper-XXXXXX, mode 711 (the worker can reach files it
// is told the name of, list nothing, change nothing), made per unit and removed with it. The
// worker's own unit folders would not do: whatever the worker wrote there in one phase would be
// run as the sandbox builder of the next.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "isolate/sandbox/plan.h"
#include "isolate/user/worker.h"

namespace aw {

class WorkerSandboxFiles {
 public:
  // helper: the awaywork to run as the worker. Used where it is when the worker can run it and
  // cannot change it (nor any folder above it); copied into the folder otherwise (awaywork under
  // /root or a build tree the worker cannot read).
  static Result<std::unique_ptr<WorkerSandboxFiles>> make(const WorkerUser& worker,
                                                          const std::string& helper);
  ~WorkerSandboxFiles();
  WorkerSandboxFiles(const WorkerSandboxFiles&) = delete;
  WorkerSandboxFiles& operator=(const WorkerSandboxFiles&) = delete;

  const std::string& helper() const { return helper_; }
  bool copied() const { return copied_; }
  // The folder itself (owner's, 711): what awaywork lends the worker's sandbox goes below it.
  const std::string& dir() const { return dir_; }
  // plan-N.json (mode 644: the worker reads it as itself), replacing an earlier one.
  Result<std::string> write_plan(const SandboxPlan& plan, int index);
  // A path in the folder for a unix socket of the owner's that the worker's sandbox bridges
  // (the inference proxy's): STEM-<128 random bits in hex>.sock. The folder cannot be listed by
  // the worker, so only a plan that names it leads there; nothing is created.
  Result<std::string> socket_path(const std::string& stem) const;
  // Is path a direct entry of the folder?
  bool holds(const std::string& path) const;

 private:
  WorkerSandboxFiles() = default;
  std::string dir_, helper_;
  bool copied_ = false;
};

// By mode bits: the worker may execute path, and neither path nor any folder above it is writable
// by the worker (a sticky folder such as /tmp counts as not writable).
bool worker_can_run_unchanged(const std::string& path, const WorkerUser& worker);

}  // namespace aw
