// Folders of a hostile tree (a unit's HOME the agent wrote, where fs.protected_symlinks may be 0),
// each step opened relative to a folder fd with O_NOFOLLOW, so a link where a folder belongs is
// never followed:
//   UniqueFd d = open_below(home_fd, ".claude/projects");   // -1 when a part is not a folder
//   for (const std::string& name : names_in(d.get())) ...    // sorted, without . and ..
//   UniqueFd in = open_below(home_fd, parent_of(rel));       // then base_of(rel) in it
// Shared by home_reset.cc and session_keep.cc.
#pragma once

#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace aw {

// The folder name in dirfd, opened without following a link; -1 when it is not one.
int open_folder_at(int dirfd, const std::string& name);

// The folder rel (relative to root, "a/b") opened part by part without following any link; -1
// when one of its parts is not a folder. "" is root itself (a new fd).
UniqueFd open_below(int root, const std::string& rel);

// "a/b/c" -> "a/b" and "c" ("" and "c" for "c"): where open_below finds a file, and its name there.
std::string parent_of(const std::string& rel);
std::string base_of(const std::string& rel);

// The names in the folder dirfd (without . and ..), sorted; none when it cannot be read.
std::vector<std::string> names_in(int dirfd);

}  // namespace aw
