// Nothing that leaves a container keeps a setuid or setgid bit: the container ran as the owner, so
// a binary it marked u+s would run as the owner for whoever executes it later.
#pragma once

#include <string>

#include "base/result.h"

namespace aw {

// Clear S_ISUID and S_ISGID on every file and folder under dir (dir included), never following a
// link. Call it only when nothing else can write under dir (the container is removed). Returns
// the number of entries changed.
Result<int> drop_setid_bits(const std::string& dir);

}  // namespace aw
