// A plugin call under isolation user (issue 28 item 4, docs/plugins.md "Under isolation user"): the
// plugin runs as the worker Unix user, inside the same OS sandbox built from its declaration, which
// the worker builds itself (`awaywork __sandbox-exec`, as a unit's phase does, isolate/user/),
// under a warden that kills whatever of the worker's the call left, with the cgroup limits set by
// the owner's warden before sudo. Everything comes from isolate/user/, nothing new is privileged:
//
// - the worker lock (worker_lock.h): after a call every process of the worker is killed, so a call
//   never runs beside a unit's phase. A unit's own calls (its notifiers and checks, between its
//   phases) run under the lock its isolator holds in this process; any other call (a source polled
//   by `watch`, a task_done after the unit ended) takes the lock for the call, and is refused while
//   a unit holds the worker (PluginWorker::unit_busy told): watch asks again at a later poll.
// - the data folder: a unit folder /tmp/awaywork-XXXXXX of its own per plugin (the only shape the
//   sudoers chown rule matches), kept between calls, recorded with its device and inode in
//   STATE/plugins/NAME/worker-data.json, handed to the worker before the call and taken back after
//   it as a unit's folders are (handoff.h: chown, same directory, permissions closed, no hard link
//   from outside). The record also says whether it is handed (written before the chown, and again
//   once taken back). A folder that is gone (a reboot cleared /tmp), no longer the one recorded,
//   or not owned as the record says (the owner's, or the worker's while handed: anyone else's is
//   another user's folder of that name) is replaced by a fresh one, never reused nor chowned; one
//   left handed by a crashed call is taken back first.
// - the helper folder (worker_sandbox.h): the plan and the helper the worker reads, and the egress
//   proxy's socket under a random name opened to the worker alone (socket_grant.h).
// - refused before anything runs, each naming the plugin and the fix: `write:` folders (the owner's
//   folders, which the worker can neither reach nor write, and whose owner or ACLs awaywork does
//   not change), and a plugin folder or `read:` path the worker cannot reach, or (the plugin's own
//   folder) could change.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/fs.h"
#include "base/result.h"
#include "config/config.h"
#include "isolate/sandbox/plan.h"
#include "isolate/user/handoff.h"
#include "isolate/user/worker.h"
#include "isolate/user/worker_sandbox.h"
#include "plugin/call.h"
#include "proc/runner.h"

namespace aw {

// Whether lock_worker's Error says a unit (of another process) holds the worker: a call refused
// for it is not the plugin's failure, only not now (PluginWorker::unit_busy is told).
bool held_by_a_unit(const Error& lock_error);

class WorkerCall {
 public:
  // Refuses what cannot run as the worker (write: folders), takes the worker (its lock, unless
  // this process holds it; refused at once while a unit holds it, w.unit_busy told), the plugin's
  // data folder (made, kept or taken back) and a helper folder.
  static Result<std::unique_ptr<WorkerCall>> open(const PluginConfig& p, const PluginWorker& w,
                                                  const std::string& plugin_dir);
  ~WorkerCall();
  WorkerCall(const WorkerCall&) = delete;
  WorkerCall& operator=(const WorkerCall&) = delete;

  const WorkerUser& worker() const { return worker_; }
  // The plugin's data folder as the worker sees it: its HOME and working folder.
  const std::string& data() const { return data_.path; }
  // Every path the plan lends read-only outside the system trees must be reachable by the worker;
  // the plugin's own folder must also be one the worker cannot change.
  Status check_reach(const PluginConfig& p, const SandboxPlan& plan) const;
  // Where the egress proxy listens: the helper folder, a random name.
  Result<std::string> proxy_socket() const { return files_->socket_path("egress"); }
  // The helper folder (the owner's, 711): a file lent read-only to the call (its CA bundle) goes
  // there, reached by the worker by its name.
  const std::string& helper_dir() const { return files_->dir(); }
  // Once the proxy listens: the worker alone may connect to it.
  Status grant_socket(const std::string& socket) const;
  // The call's launcher (sudo as the worker, under a warden, the worker's own sandbox); the data
  // folder is handed to the worker. report: the warden's report, a path of the owner's.
  Result<Launcher> launcher(const SandboxPlan& plan, const std::string& report);
  // After the call: the warden's report read, the data folder taken back. An Error when the
  // worker's processes could not be proved gone or the folder is not the one handed.
  Status finish(const std::string& report);

 private:
  WorkerCall() = default;
  WorkerUser worker_;
  uid_t owner_uid_ = 0;
  gid_t owner_gid_ = 0;
  int lock_ = -1;  // taken for this call; -1 when this process's unit holds it
  UnitFolder data_;
  std::string record_;  // worker_data_record: says whether data_ is handed
  bool handed_ = false;
  std::unique_ptr<WorkerSandboxFiles> files_;
};

// STATE/plugins/NAME/worker-data.json: the data folder of the plugin under isolation user.
std::string worker_data_record(const std::string& plugin_dir);

struct RecordedWorkerData {
  UnitFolder folder;
  bool handed = false;  // the record says it was handed to the worker and not taken back
};

// The data folder the record names when it may be reused: recorded for this worker in this boot,
// still that directory (lstat, never through a link: same device and inode), and owned as the
// record says, by `owner` when taken back or by the worker while handed. Anything else is none,
// and the caller makes a fresh folder: a folder of that name owned by anyone else is another
// user's (a /tmp cleaner removed ours, the inode number came back), never to be chowned.
std::optional<RecordedWorkerData> recorded_worker_data(const std::string& record,
                                                       const WorkerUser& w, uid_t owner);
// Writes the record (0600, replaced whole): the folder, this worker and boot, and whether handed.
Status record_worker_data(const std::string& record, const WorkerUser& w, const UnitFolder& f,
                          bool handed);

}  // namespace aw
