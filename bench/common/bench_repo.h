// For benchmarks: git run with a clean environment, and a generated repository of N files
// (d<i/100>/f<i>.txt, 200-500 bytes each), committed and packed like a real one; the environment
// of a push through awaywork's askpass.
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

// extra: more environment after kGitEnv's; in: the standard input.
inline bool run(std::vector<std::string> argv, const std::string& cwd = "/",
                const std::vector<std::string>& extra = {}, const std::string& in = "") {
  std::vector<std::string> env = kGitEnv;
  env.insert(env.end(), extra.begin(), extra.end());
  auto r = capture({.argv = std::move(argv), .env = env, .cwd = cwd, .stdin_data = in});
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

// FILES files (the same tree, bodies of 'y') in one commit on main, written by git fast-import:
// no work tree to write first, so a large remote is quick to make.
inline bool make_imported_repo(const std::string& dir, int files) {
  std::string stream = "commit refs/heads/main\ncommitter b <b@b> 0 +0000\ndata 4\ninit\n";
  for (int i = 0; i < files; ++i) {
    std::string body = "file " + std::to_string(i) + "\n" + std::string(200 + i % 300, 'y') + "\n";
    stream += "M 644 inline d" + std::to_string(i / 100) + "/f" + std::to_string(i) +
              ".txt\ndata " + std::to_string(body.size()) + "\n" + body + "\n";
  }
  return run({"git", "init", "-q", "-b", "main", dir}) &&
         run({"git", "fast-import", "--quiet"}, dir, {}, stream) &&
         run({"git", "checkout", "-q", "main"}, dir) && run({"git", "gc", "-q"}, dir);
}

// The environment that makes git ask awaywork (askpass: its binary) for USER's TOKEN on HOST, as
// a publish's push does: a plain push with it costs what the publish's push costs.
inline std::vector<std::string> askpass_env(const std::string& askpass, const std::string& host,
                                            const std::string& user, const std::string& token) {
  return {"GIT_ASKPASS=" + askpass, "AWAYWORK_ASKPASS=1", "AWAYWORK_ASKPASS_HOST=" + host,
          "AWAYWORK_ASKPASS_USERNAME=" + user, "AWAYWORK_ASKPASS_PASSWORD=" + token};
}

}  // namespace aw::bench
