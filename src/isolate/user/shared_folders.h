// doctor for isolation user: the worker's leftovers are swept from /tmp, /var/tmp and /dev/shm
// (leftovers.h); any other world-writable folder of the root file system without the sticky bit
// is a place where the worker could plant a file for the next unit or the owner, or replace one
// of another user's. Each is a warning with its fix.
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
