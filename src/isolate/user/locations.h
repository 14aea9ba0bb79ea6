// Where a user unit's folders are: isolation.json in the owner's run folder (the worker cannot
// reach it), written when the folders are made and when the unit ends. It is what the owner reads
// to find a unit's clone, and what crash recovery reads to take back the folders a killed
// awaywork left in the worker's hands.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "base/result.h"
#include "isolate/user/handoff.h"

namespace aw {

struct UserUnitLocations {
  std::string worker;
  std::string clone, home;  // the clone (inside folders[0]) and the HOME (folders[1])
  bool home_removed = false;
  std::vector<UnitFolder> folders;  // with the identity each had when it was made
};

Status write_locations(const std::string& file, const UserUnitLocations& l);
Result<UserUnitLocations> read_locations(const std::string& file);

// After a crash (the awaywork that ran the unit was killed outright): kill every process of the
// worker (the caller holds the worker lock, so none belongs to a live unit), take each folder
// back with the second sudoers rule, check it is still the folder that was made, and close it
// (mode 700, the owner's) for inspection. Returns what was done, for the unit's record; an Error
// only when nothing could be done at all.
Result<std::string> reclaim_abandoned(const UserUnitLocations& l, uid_t owner_uid, gid_t owner_gid);

}  // namespace aw
