// Where the worker can leave something for the next unit (isolation user): every folder of the
// machine it can write into, found, not listed by hand. /tmp, /var/tmp and /dev/shm are the usual
// ones, but /run/lock (= /var/lock), /var/crash, /dev/mqueue, a distribution's spool folders or a
// folder someone opened with chmod 777 serve as well; the sweep after every unit (leftovers.h)
// walks each of them.
//
// Found by walking the mount table: every local file system mounted writable (not /proc, /sys or
// /dev but for /dev/shm and /dev/mqueue, no network or pseudo file system, no fuse mount: without
// allow_other only its user reaches it), folders only, never following a link nor crossing into
// another mount, entering only what the worker could search. A folder the worker may write into
// (mode bits for its uid and only group) is a place; what is below it is the sweep's to walk, so
// the search goes no deeper there. Bounded in depth, folders and time; cached per process (a
// unit's end must not wait on a walk of /usr each time).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace aw {

struct MountEntry {
  std::string path;  // where it is mounted, escapes (\040...) decoded
  std::string type;  // "ext4", "tmpfs", "fuse.sshfs"...
  bool read_only = false;
};

// The lines of /proc/self/mountinfo; a line that does not parse is skipped.
std::vector<MountEntry> parse_mountinfo(const std::string& text);

// Is the mount one the worker could leave files on for the next unit (above)?
bool mount_to_search(const MountEntry& m);

struct SharedPlaces {
  std::vector<std::string> roots;  // /tmp, /var/tmp, /dev/shm where present, then what was found
  std::string incomplete;          // why the search stopped early ("" when it did not)
};

struct SharedPlacesLimits {
  std::chrono::milliseconds budget{20000};
  size_t max_folders = 2000000;  // folders looked at
  size_t max_places = 1000;
  int max_depth = 40;
};

// The places of uid/gid on the given mounts (as the calling process can see them: a folder it
// cannot list is not entered).
SharedPlaces find_shared_places(uid_t uid, gid_t gid, const std::vector<MountEntry>& mounts,
                                const SharedPlacesLimits& limits = {});

// The same on this machine's mounts, cached for this process for a few minutes.
SharedPlaces shared_places(uid_t uid, gid_t gid);

}  // namespace aw
