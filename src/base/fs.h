// Small filesystem helpers that never follow a link the agent could have planted.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "base/result.h"

namespace aw {

// Identity of a directory, taken by lstat: a swapped folder or a link has another one.
struct DirId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const DirId&) const = default;
};

// lstat(path) must be a real directory (not a link); returns its device and inode.
Result<DirId> dir_id(const std::string& path);

// Read a regular file without following a final link; refuses files larger than cap bytes.
Result<std::string> read_file(const std::string& path, size_t cap = 64u << 20);

// Create or replace path (never through a link) with data and mode.
Status write_file(const std::string& path, const std::string& data, mode_t mode = 0600);

// mkdir -p with mode for each created folder.
Status make_dirs(const std::string& path, mode_t mode = 0700);

// rm -r that never follows links.
Status remove_tree(const std::string& path);

// "No such file or directory (errno 2)".
std::string errno_text(int err);

}  // namespace aw
