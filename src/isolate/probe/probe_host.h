// The outer side of `awaywork probe`: what the probes look for, set up on the host for as long as
// this object lives. It plants nothing in the owner's secret folders: the hidden paths are probed
// as they are (any content seen is a leak); it adds a loopback listener, a listener on the host's
// address, an owner process with a marker in its environment and command line, a key in a
// session keyring the phase inherits, and canaries in a folder of its own in the owner's home (a
// note, a browser's cookie database, another tool's login: view.*). Other users' homes and the
// root-only files of /etc are probed as they are (view.other_home:PATH, rootonly:PATH).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/probe/probes.h"
#include "isolate/sandbox/plan.h"

namespace aw {

struct ProbeHostOptions {
  std::string owner_home;   // write.home
  std::string source_repo;  // write.source_repo (the repository the clone came from), may be ""
  std::string env_file, database, secrets;  // hidden.env_file, hidden.database, hidden.secrets
};

class ProbeHost {
 public:
  static Result<std::unique_ptr<ProbeHost>> start(const SandboxPlan& plan,
                                                  const ProbeHostOptions& o);
  ~ProbeHost();  // kills the marker process, closes the listeners, unlinks the key
  const ProbeTargets& targets() const { return targets_; }

 private:
  ProbeHost() = default;
  ProbeTargets targets_;
  std::vector<int> fds_;
  std::string canary_dir_;  // removed with the object
  pid_t marker_pid_ = -1;
  long key_ = -1;
};

}  // namespace aw
