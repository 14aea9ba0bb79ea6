// Usage: git_bench [files=20000] [rounds=5]
// Measures awaywork's prepare + collect (make_clone then make_patch after a one-file change)
// against the plain equivalent (git clone --no-hardlinks, the same change, git status), both on
// the same generated repository, interleaved round by round. Prints medians and the ratio.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "base/fs.h"
#include "git/git.h"
#include "proc/capture.h"

namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::string> kEnv = {
    "PATH=/usr/bin:/bin",          "HOME=/nonexistent",       "GIT_CONFIG_NOSYSTEM=1",
    "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=b",       "GIT_AUTHOR_EMAIL=b@b",
    "GIT_COMMITTER_NAME=b",        "GIT_COMMITTER_EMAIL=b@b", "LC_ALL=C"};

bool run(std::vector<std::string> argv, const std::string& cwd = "/") {
  auto r = aw::capture({.argv = std::move(argv), .env = kEnv, .cwd = cwd, .stdin_data = ""});
  if (!r || r->exit_code != 0) {
    std::fprintf(stderr, "failed: %s\n", r ? r->err.c_str() : r.error().message.c_str());
    return false;
  }
  return true;
}

bool make_repo(const std::string& dir, int files) {
  if (!run({"git", "init", "-q", "-b", "main", dir})) return false;
  for (int i = 0; i < files; ++i) {
    std::string sub = dir + "/d" + std::to_string(i / 100);
    if (i % 100 == 0 && !aw::make_dirs(sub)) return false;
    std::string body = "file " + std::to_string(i) + "\n" + std::string(200 + i % 300, 'x') + "\n";
    if (!aw::write_file(sub + "/f" + std::to_string(i) + ".txt", body, 0644)) return false;
  }
  // Packed like a real repository, and synchronously: a background gc --auto would prune loose
  // objects while the clones copy them.
  return run({"git", "add", "-A"}, dir) &&
         run({"git", "-c", "gc.auto=0", "commit", "-q", "-m", "init"}, dir) &&
         run({"git", "gc", "-q"}, dir);
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  char tmpl[] = "/tmp/aw-git-bench-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  struct Cleanup {
    std::string path;
    ~Cleanup() { (void)aw::remove_tree(path); }
  } cleanup{root};  // also on the early returns of a failed round
  std::string src_dir = root + "/source";
  std::printf("generating %d files in %s\n", files, src_dir.c_str());
  if (!make_repo(src_dir, files)) return 1;
  auto src = aw::open_source(src_dir);
  auto base = src ? aw::resolve_commit(*src, "") : aw::Result<std::string>(aw::fail("no source"));
  if (!base) return 1;

  // The one file each side changes: an existing one, in the middle of the tree.
  int k = files / 2;
  std::string changed = "/d" + std::to_string(k / 100) + "/f" + std::to_string(k) + ".txt";
  std::vector<double> ours, plain;
  for (int r = 0; r < rounds; ++r) {
    std::string run_dir = root + "/run" + std::to_string(r);
    if (!aw::make_dirs(run_dir)) return 1;
    auto measure_ours = [&]() -> bool {
      ::sync();  // each side starts without the other's pending writeback
      auto t = Clock::now();
      auto c = aw::make_clone(*src, *base, "main", run_dir + "/work", run_dir + "/git");
      if (!c) {
        std::fprintf(stderr, "make_clone: %s\n", c.error().message.c_str());
        return false;
      }
      if (!aw::write_file(run_dir + "/work" + changed, "changed\n", 0644)) return false;
      double clone_s = seconds_since(t);
      auto p = aw::make_patch(*c);
      if (!p || p->paths.size() != 1) {
        std::fprintf(stderr, "make_patch: %s\n",
                     p ? "unexpected paths" : p.error().message.c_str());
        return false;
      }
      ours.push_back(seconds_since(t));
      std::printf("  make_clone %.3fs, make_patch %.3fs\n", clone_s, ours.back() - clone_s);
      return true;
    };
    auto measure_plain = [&]() -> bool {
      std::string dst = run_dir + "/plain";
      ::sync();
      auto t = Clock::now();
      if (!run({"git", "clone", "-q", "--no-hardlinks", src_dir, dst})) return false;
      if (!aw::write_file(dst + changed, "changed\n", 0644)) return false;
      if (!run({"git", "status", "--porcelain"}, dst)) return false;
      plain.push_back(seconds_since(t));
      return true;
    };
    // Alternate which side goes first so that neither always inherits the other's I/O.
    bool ok = r % 2 == 0 ? measure_ours() && measure_plain() : measure_plain() && measure_ours();
    if (!ok) return 1;
    (void)aw::remove_tree(run_dir);
    ::sync();
    std::printf("round %d: awaywork %.3fs  plain %.3fs\n", r + 1, ours.back(), plain.back());
  }
  double a = median(ours), b = median(plain);
  std::printf("median awaywork (make_clone + make_patch): %.3fs\n", a);
  std::printf("median plain (clone --no-hardlinks + status): %.3fs\n", b);
  std::printf("ratio: %.2f (target <= 2.0)\n", a / b);
  return 0;
}
