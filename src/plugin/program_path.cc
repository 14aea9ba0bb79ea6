#include "plugin/program_path.h"

#include <climits>
#include <cstdlib>

namespace aw {

std::string plugin_program_realpath(const std::string& path) {
  char buf[PATH_MAX];
  return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

bool plugin_program_is_system(const std::string& path) {
  for (const char* t : {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/"})
    if (path.starts_with(t)) return true;
  return false;
}

}  // namespace aw
