// The per-phase handoff of isolation `user` (DESIGN.md section 3): a unit's folders (the clone and
// its HOME, each directly under /tmp as /tmp/awaywork-XXXXXX so that the two sudoers chown rules
// match them and nothing else) are handed to the worker before a phase and taken back after it:
//
//   before_phase: chown -R -h -P WORKER: <each folder>               (sudo, rule 2)
//   ... the phase runs as the worker (worker_launcher.h) ...
//   after_phase:  kill every process of the worker, prove none is left
//                 chown -R -h -P UID:GID <each folder>               (sudo, rule 2)
//                 lstat: each folder is the same directory (device, inode, not a link)
//                 chmod -R u+rwX,go-rwx (top folder 711), in-process, never following a link;
//                 refuse any file also linked from outside the unit's folders
//   then the caller: git verify_and_restore on the clone (.git/config, hooks, alternates).
//
// Any Error from after_phase means the unit is lost: no more phases, no git of awaywork's in the
// clone, nothing published; the message names the folders, which are left for inspection.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/fs.h"
#include "base/result.h"
#include "isolate/user/worker.h"

namespace aw {

struct UnitFolder {
  std::string path;  // /tmp/awaywork-XXXXXX
  DirId id;          // taken when it was made; checked after every phase
};

// mkdtemp("/tmp/awaywork-XXXXXX"), mode 700, owned by the caller.
Result<UnitFolder> make_unit_folder();

// Whether path has exactly the shape the sudoers rules allow: /tmp/awaywork- and six [A-Za-z0-9].
bool is_unit_path(const std::string& path);

// `sudo -n chown -R -h -P WORKER: PATH` / `sudo -n chown -R -h -P UID:GID PATH`, argv only,
// exactly the forms of the sudoers lines.
Status hand_to_worker(const UnitFolder& f, const WorkerUser& worker);
Status hand_back(const UnitFolder& f, uid_t uid, gid_t gid);

// lstat(path) is still the directory made by make_unit_folder.
Status verify_same(const UnitFolder& f);

// chmod -R u+rwX,go-rwx and the top folders 711, done with openat/fchmodat, never through a link
// and never across a mount. Also refuses (Error) anything not owned by `owner`, and any file
// whose link count says it is also linked from outside these folders (a hardlink the worker made
// to trick the next chown).
Status close_permissions(const std::vector<UnitFolder>& folders, uid_t owner);

// `sudo -n -u WORKER kill -9 -1`, repeated until a scan of /proc finds no live process with the
// worker's uid (real, effective, saved or fs), for at most ~5 s. An Error when some survive or
// when /proc hides other users' processes (nothing could be proved).
Status kill_worker_processes(const WorkerUser& worker);

// Live (not zombie) processes with the worker's uid, by pid. Error when /proc cannot show them.
Result<std::vector<pid_t>> worker_processes(uid_t worker_uid);

struct Handoff {
  WorkerUser worker;
  uid_t owner_uid = 0;
  gid_t owner_gid = 0;
  std::vector<UnitFolder> folders;  // the clone and the HOME
};

Status before_phase(const Handoff& h);
Status after_phase(const Handoff& h);

// Remove a unit folder (after hand_back): the HOME at the end of the unit.
Status remove_unit_folder(const UnitFolder& f);

}  // namespace aw
