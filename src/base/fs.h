// Small filesystem helpers that never follow a link the agent could have planted.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

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

// The same with the choices spelled out, and why it failed for callers that word their own error.
enum class ReadFailure { none, open, not_regular, too_large, read };
struct ReadOptions {
  size_t cap = 64u << 20;
  bool follow_final_link = false;  // only for the owner's own files (e.g. a dotfiles config)
};
struct ReadProblem {
  ReadFailure what = ReadFailure::none;
  int err = 0;  // errno for open and read
};
Result<std::string> read_file(const std::string& path, const ReadOptions& opts,
                              ReadProblem* problem);

// The whole of a small file (a /proc or cgroupfs file, one of our own), "" when it cannot be read:
// for callers to whom a missing file and an empty one mean the same. read_file's rules and cap.
std::string read_or_empty(const std::string& path);

// Create or replace path (never through a link) with data and mode.
Status write_file(const std::string& path, const std::string& data, mode_t mode = 0600);
// The same, but a reader at any moment sees the old content or the new, never no file: written
// beside it (PATH.tmp-PID) and renamed over it. For files other processes read concurrently.
Status replace_file(const std::string& path, const std::string& data, mode_t mode = 0600);

// All of data to the open fd (a write cut short or interrupted goes on); an Error "write SHOWN:
// ..." when the rest cannot be written. The fd stays open either way: the caller closes it.
Status write_fd(int fd, std::string_view data, const std::string& shown);

// mkdir -p with mode for each created folder.
Status make_dirs(const std::string& path, mode_t mode = 0700);

// rm -r that never follows links.
Status remove_tree(const std::string& path);

// "No such file or directory (errno 2)".
std::string errno_text(int err);

// The running executable (/proc/self/exe); "" when it cannot be read.
std::string self_exe();

}  // namespace aw
