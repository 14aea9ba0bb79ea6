// A unit run by watch: `awaywork run --issue NAME#N --json` as a child process (the same pipeline
// as the command), in its own process group so that a terminal's Ctrl-C reaches watch only, and
// told SIGTERM if watch dies (PR_SET_PDEATHSIG), which the run records as interrupted: started by
// spawn_tied_child (proc/tied_child.h), as serve's are. Its output goes to a log file under the
// state folder.
//
//   AW_TRY(UnitChild c, UnitChild::spawn({self_exe(), "--config", f, "run", ...}, log_path));
//   c.terminate();  ...  if (auto code = c.reap()) { ended with *code }
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

class UnitChild {
 public:
  static Result<UnitChild> spawn(const std::vector<std::string>& argv, const std::string& log);
  // A child a previous watch started (found in the state database): watched by its pid and
  // start time, not waited for (it is not ours to reap).
  static UnitChild adopt(pid_t pid, std::string start_time);

  pid_t pid() const { return pid_; }
  const std::string& start_time() const { return start_; }
  // SIGTERM: the run's own path stops its phase (TERM, grace, KILL) and records interrupted.
  void terminate();
  // The exit status once ended (a signal is 128+N; an adopted child's is -1), else nullopt.
  std::optional<int> reap();

 private:
  UnitChild(pid_t pid, std::string start, bool adopted)
      : pid_(pid), start_(std::move(start)), adopted_(adopted) {}
  pid_t pid_ = -1;
  std::string start_;
  bool adopted_ = false;
  std::optional<int> status_;
};

}  // namespace aw
