// Folders walked fd-relative, never through a link (the git room's restores and removals).
//   UniqueFd sub(open_dir_at(parent_fd, "name"));
//   for (const auto& e : entries_in(sub.get())) ...   // e.name, e.type (DT_DIR, DT_UNKNOWN, ...)
//   AW_CHECK(remove_at(parent_fd, "name", "src/.claude"));  // rm -r, a link removed as a link
#pragma once

#include <fcntl.h>

#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

constexpr int kDirAtFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// A folder below dirfd, opened without following a link; one the agent made unreadable is made
// the owner's to walk again first (the caller's fstatat said it is a folder; nothing else runs).
// Returns the descriptor, or -1 with errno.
int open_dir_at(int dirfd, const std::string& name);

struct DirEntry {
  std::string name;
  unsigned char type;  // d_type: DT_DIR, DT_REG, ..., DT_UNKNOWN
};

// The entries of the open folder dirfd but "." and ".."; empty when it cannot be read.
std::vector<DirEntry> entries_in(int dirfd);

// The same, for a caller that must not take an unreadable folder for an empty one (a clone's
// hooks left in place would run): an Error "read SHOWN: ..." when it cannot be read.
Result<std::vector<DirEntry>> read_entries(int dirfd, const std::string& shown);

// Folders deeper than this below where a walk or a removal starts are refused: each level holds
// a descriptor while the walk is below it, and no repository has such a tree.
inline constexpr int kMaxDirAtDepth = 256;

// rm -r of name below dirfd (absent: nothing to do), never through a link: a link is removed as
// a link, a folder the agent made unreadable is made the owner's first. shown names it in errors;
// depth is how deep name already is (a tree that reaches past kMaxDirAtDepth is refused). The one
// removal of the git room's restores (base_paths.cc) and of nested repositories (nested_repos.cc).
Status remove_at(int dirfd, const std::string& name, const std::string& shown, int depth = 0);

}  // namespace aw
