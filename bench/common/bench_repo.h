// For benchmarks: git run with a clean environment, and a generated repository of N files
// (d<i/100>/f<i>.txt, 200-500 bytes each), committed and packed like a real one.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "base/fs.h"
#include "proc/capture.h"

namespace aw::bench {

inline const std::vector<std::string> kGitEnv = {
    "PATH=/usr/bin:/bin",          "HOME=/nonexistent",       "GIT_CONFIG_NOSYSTEM=1",
    "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=b",       "GIT_AUTHOR_EMAIL=b@b",
    "GIT_COMMITTER_NAME=b",        "GIT_COMMITTER_EMAIL=b@b", "LC_ALL=C"};

inline bool run(std::vector<std::string> argv, const std::string& cwd = "/") {
  auto r = capture({.argv = std::move(argv), .env = kGitEnv, .cwd = cwd, .stdin_data = ""});
  if (!r || r->exit_code != 0) {
    std::fprintf(stderr, "failed: %s\n", r ? r->err.c_str() : r.error().message.c_str());
    return false;
  }
  return true;
}

// git init, `files` files, then before_commit (extra files, may be empty), commit, gc. Packed
// synchronously: a background gc --auto would prune loose objects while clones copy them.
template <typename Extra>
bool make_repo(const std::string& dir, int files, Extra before_commit) {
  if (!run({"git", "init", "-q", "-b", "main", dir})) return false;
  for (int i = 0; i < files; ++i) {
    std::string sub = dir + "/d" + std::to_string(i / 100);
    if (i % 100 == 0 && !make_dirs(sub)) return false;
    std::string body = "file " + std::to_string(i) + "\n" + std::string(200 + i % 300, 'x') + "\n";
    if (!write_file(sub + "/f" + std::to_string(i) + ".txt", body, 0644)) return false;
  }
  if (!before_commit()) return false;
  return run({"git", "add", "-A"}, dir) &&
         run({"git", "-c", "gc.auto=0", "commit", "-q", "-m", "init"}, dir) &&
         run({"git", "gc", "-q"}, dir);
}

}  // namespace aw::bench
