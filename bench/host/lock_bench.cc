// The figure of `awaywork host lock`: its walk (the step that grows with the file system) on a
// tree of 100k world-writable paths (1000 folders of 99 files, every one o+w), median wall time
// over RUNS, against `find DIR -xdev -perm -o+w ! -type l -exec chmod o-w {} +` (what a shell
// hardening script does) on the same tree in the same run, and a walk that changes nothing (the
// second, idempotent run). The design's anchor: some 800k paths in under two minutes on a hosted
// runner.
//   build/bench/host/host_lock_bench [RUNS] [PATHS]
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../common/bench_time.h"
#include "base/fs.h"
#include "host/lock.h"

namespace {

using Clock = std::chrono::steady_clock;

using aw::bench::median;

// Every path o+w again (the tree is made once; each run starts from the same modes).
void open_up(const std::vector<std::string>& dirs, const std::vector<std::string>& files) {
  for (const auto& d : dirs) ::chmod(d.c_str(), 0777);
  for (const auto& f : files) ::chmod(f.c_str(), 0666);
}

template <class F>
double seconds(F&& f) {
  auto t = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  int paths = argc > 2 ? std::atoi(argv[2]) : 100000;
  char tmpl[] = "/var/tmp/aw-lock-bench-XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  std::string root = tmpl;
  std::vector<std::string> dirs{root}, files;
  int per_dir = 99;
  for (int d = 0; static_cast<int>(dirs.size() + files.size()) < paths; ++d) {
    std::string dir = fmt::format("{}/d{}", root, d);
    ::mkdir(dir.c_str(), 0777);
    dirs.push_back(dir);
    for (int f = 0; f < per_dir && static_cast<int>(dirs.size() + files.size()) < paths; ++f) {
      files.push_back(fmt::format("{}/f{}", dir, f));
      int fd = ::open(files.back().c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
      if (fd >= 0) ::close(fd);
    }
  }
  size_t total = dirs.size() + files.size();
  std::vector<double> lock_s, again_s, find_s;
  size_t changed = 0;
  for (int i = 0; i < runs; ++i) {
    open_up(dirs, files);
    std::vector<aw::LockChange> out;
    lock_s.push_back(seconds([&] { (void)aw::lock_walk(root, {}, out); }));
    changed = out.size();
    std::vector<aw::LockChange> none;
    again_s.push_back(seconds([&] { (void)aw::lock_walk(root, {}, none); }));
    if (!none.empty()) fmt::print(stderr, "the second walk changed {} paths\n", none.size());
    open_up(dirs, files);
    std::string cmd = fmt::format(
        "find '{}' -xdev -perm -o+w ! -type l -exec chmod o-w {{}} + 2>/dev/null", root);
    find_s.push_back(seconds([&] {
      if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "lock_bench: find failed\n");
    }));
  }
  (void)aw::remove_tree(root);
  double l = median(lock_s), a = median(again_s), f = median(find_s);
  fmt::print("host lock walk, {} world-writable paths ({} changed), median of {} runs:\n", total,
             changed, runs);
  fmt::print("  lock walk (clears o+w):        {:8.3f} s  ({:.2f} µs/path)\n", l, l * 1e6 / total);
  fmt::print("  lock walk again (no change):   {:8.3f} s\n", a);
  fmt::print("  find -xdev ... chmod o-w {{}} +: {:8.3f} s  (baseline)\n", f);
  fmt::print("  ratio lock/find: {:.2f}; at this rate 800k paths take {:.1f} s (anchor: < 120 s)\n",
             l / f, l / total * 800000);
  return 0;
}
