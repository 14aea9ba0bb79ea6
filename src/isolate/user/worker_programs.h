// Which program the worker runs for a phase's argv[0], found as the worker would find it: the
// first entry of the phase's PATH where the worker can reach and run the file (every folder above
// it searchable, the file's real path included, and for a script its interpreter too). The owner
// often has an agent CLI under a home the worker cannot enter (~/.local/bin, ~/.nvm); it would end
// in `exit 126`, so doctor shows it as a ✖ and `run` refuses before any phase, with the fix.
//
//   AW_TRY(std::string prog, resolve_for_worker("claude", path, worker));  //
//   "/usr/local/bin/claude"
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "doctor/doctor.h"
#include "isolate/user/worker.h"

namespace aw {

// The absolute path the worker runs, or an Error naming where the owner finds the program, why
// the worker cannot run it, and the fix (install it system-wide).
Result<std::string> resolve_for_worker(const std::string& program, const std::string& path_value,
                                       const WorkerUser& worker);

// Every program of a unit the worker must run (what, e.g. "agent claude" or "check 1 of repo
// web", and argv[0]).
struct WorkerProgram {
  std::string what;
  std::string program;
};

// All of them runnable, or one Error listing each that is not with its fix.
Status programs_runnable(const std::vector<WorkerProgram>& programs, const std::string& path_value,
                         const WorkerUser& worker);

// doctor: one check per program, "worker W can run PROGRAM (WHAT)".
std::vector<Check> program_checks(const std::vector<WorkerProgram>& programs,
                                  const std::string& path_value, const WorkerUser& worker);

}  // namespace aw
