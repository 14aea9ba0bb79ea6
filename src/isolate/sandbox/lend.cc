// Lending a phase its program: the sandbox's /tmp, /run and /dev/shm are private, so a program
// that lives there (a test's script, a tool unpacked in /tmp) would be missing inside.
#include <limits.h>
#include <stdlib.h>

#include "isolate/sandbox/plan.h"
#include "proc/capture.h"

namespace aw {

namespace {

bool inside_dir(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         (dir == "/" || path[dir.size()] == '/'));
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace

void lend_program(const std::string& argv0, const std::string& path_value, SandboxPlan& plan) {
  std::string given = argv0;
  if (!argv0.empty() && argv0.find('/') == std::string::npos) {
    auto found = find_program(argv0, path_value);
    given = found ? *found : std::string();
  }
  if (given.empty() || given[0] != '/') return;
  std::string real = real_path(given);
  if (real.empty()) return;
  bool private_place = false;
  for (const char* dir : {"/tmp", "/run", "/dev/shm"})
    private_place = private_place || inside_dir(given, dir) || inside_dir(real, dir);
  if (!private_place) return;
  // Nothing re-exposes a hidden place.
  for (const auto& h : plan.hidden)
    if (inside_dir(real, h) || inside_dir(given, h)) return;
  plan.readable.push_back({real, given});
}

}  // namespace aw
