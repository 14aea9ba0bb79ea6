#include "isolate/static_program.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <vector>

namespace aw {

namespace {

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string exe(buf, static_cast<size_t>(n));
  return exe.substr(0, exe.rfind('/'));
}

}  // namespace

Result<std::string> static_program(const std::string& name) {
  std::vector<std::string> places;
  if (auto dir = self_dir(); !dir.empty()) {
    places.push_back(dir + "/" + name);
    places.push_back(dir + "/../libexec/awaywork/" + name);
  }
#ifdef AW_STATIC_PROGRAM_DIR
  places.push_back(std::string(AW_STATIC_PROGRAM_DIR) + "/" + name);
#endif
  std::string looked;
  for (const auto& p : places) {
    char real[PATH_MAX];
    if (::realpath(p.c_str(), real) && ::access(real, X_OK) == 0) return std::string(real);
    looked += (looked.empty() ? "" : ", ") + p;
  }
  return fail("{} not found (looked at {}); build it: ninja {}", name, looked, name);
}

}  // namespace aw
