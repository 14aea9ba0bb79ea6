// Usage: git_bench [files=20000] [rounds=5]
// Measures awaywork's prepare + collect (make_clone then make_patch after a one-file change)
// against the plain equivalent (git clone --no-hardlinks, the same change, git status), both on
// the same generated repository, interleaved round by round. Prints medians and the ratio.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/bench_repo.h"
#include "../common/bench_time.h"
#include "../common/temp_root.h"
#include "base/fs.h"
#include "git/git.h"

namespace {

using Clock = aw::bench::Stopwatch;
using aw::bench::median;
using aw::bench::run;
using aw::bench::seconds_since;

bool make_repo(const std::string& dir, int files) {
  return aw::bench::make_repo(dir, files, [] { return true; });
}

}  // namespace

int main(int argc, char** argv) {
  int files = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  aw::bench::TempRoot temp("/tmp/aw-git-bench-");  // also on the early returns of a failed round
  const std::string& root = temp.path();
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
