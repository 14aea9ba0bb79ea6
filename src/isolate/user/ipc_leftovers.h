// The worker's System V IPC objects (isolation user): a shared-memory segment, a semaphore set or
// a message queue outlives the process that made it, so one unit's worker could leave data there
// for the next (same uid: it may read and write them). Without the OS sandbox (which gives each
// phase its own IPC namespace) they live in the machine's; after every unit the sweep
// (leftovers.h) removes those the worker owns or created, as the worker (IPC_RMID is allowed to
// an object's owner and creator), and the owner proves none is left. POSIX message queues are
// files of /dev/mqueue and POSIX shared memory and semaphores files of /dev/shm: the folder sweep
// takes those.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aw {

enum class IpcKind { shm, sem, msg };

struct IpcObject {
  IpcKind kind = IpcKind::shm;
  int id = 0;
  unsigned key = 0;
  uid_t uid = 0;   // owner (IPC_SET may change it)
  uid_t cuid = 0;  // creator (nothing changes it)
};

// The objects of a /proc/sysvipc/{shm,sem,msg} text (columns found by the header's names) whose
// owner or creator is uid.
std::vector<IpcObject> parse_sysvipc(IpcKind kind, const std::string& text, uid_t uid);

// The same, read from /proc/sysvipc (the caller's IPC namespace): all three kinds.
std::vector<IpcObject> ipc_objects_of(uid_t uid);

// IPC_RMID on each of uid's objects; the caller must be uid (the worker's half of the sweep).
// Returns those removed.
std::vector<IpcObject> remove_ipc_objects_of(uid_t uid);

// "SysV shared memory 32769 (key 0x0000abcd)", for the record.
std::string describe_ipc(const IpcObject& o);

}  // namespace aw
