// Folders walked fd-relative, never through a link (the git room's restores and removals).
//   UniqueFd sub(open_dir_at(parent_fd, "name"));
//   for (const auto& e : entries_in(sub.get())) ...   // e.name, e.type (DT_DIR, DT_UNKNOWN, ...)
#pragma once

#include <fcntl.h>

#include <string>
#include <vector>

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

}  // namespace aw
