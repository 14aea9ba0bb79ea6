// doctor for isolation user: the worker's leftovers are swept from every world-writable folder
// after every unit (leftovers.h, shared_places.h), but in one without the sticky bit the worker
// can also delete, rename or replace another user's file (the owner's included), and no sweep
// undoes that. Each such folder of the root file system outside /tmp, /var/tmp and /dev/shm is a
// warning with its fix.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor.h"

namespace aw {

// World-writable folders without the sticky bit on the file system of `root`, found without
// following links or crossing file systems, outside the swept trees; at most `cap`.
std::vector<std::string> open_shared_folders(const std::string& root = "/", size_t cap = 50);

// One check: ok with no such folder; else still ok (a warning: it does not stop a unit) with the
// folders and `chmod o-w` / `chmod +t` as the fix in the detail.
Check shared_folders_check(const std::string& root = "/");

}  // namespace aw
