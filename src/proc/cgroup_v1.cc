#include "proc/cgroup_v1.h"

#include <sstream>
#include <vector>

#include "base/fs.h"
#include "base/mountinfo.h"

namespace aw {

namespace {

bool comma_word(std::string_view list, std::string_view word) {
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(at, end - at) == word) return true;
    at = end + 1;
  }
  return false;
}

// Is group at or below root, by whole path components ("/docker/xy" is not below "/docker/x")?
// rest: what is left of it below root ("/y" for "/docker/x/y" below "/docker/x", "" for root).
bool below(const std::string& group, const std::string& root, std::string& rest) {
  if (root == "/") {
    rest = group == "/" ? "" : group;
    return !group.empty() && group[0] == '/';
  }
  if (group == root) {
    rest = "";
    return true;
  }
  if (group.size() > root.size() && group.compare(0, root.size(), root) == 0 &&
      group[root.size()] == '/') {
    rest = group.substr(root.size());
    return true;
  }
  return false;
}

}  // namespace

Result<std::string> v1_group_dir(std::string_view self_cgroup, std::string_view mountinfo,
                                 std::string_view controller) {
  // HIERARCHY-ID:CONTROLLERS:PATH; the v2 line ("0::/...") has no controllers.
  std::string group;
  bool listed = false;
  std::istringstream lines{std::string(self_cgroup)};
  for (std::string line; !listed && std::getline(lines, line);) {
    size_t a = line.find(':');
    size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    if (comma_word(std::string_view(line).substr(a + 1, b - a - 1), controller)) {
      group = line.substr(b + 1);
      listed = true;
    }
  }
  if (!listed || group.empty() || group[0] != '/')
    return fail("this kernel has no cgroup v1 {} hierarchy (/proc/self/cgroup names none)",
                controller);
  // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS
  std::string found, elsewhere;
  std::istringstream mounts{std::string(mountinfo)};
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream f(line);
    std::vector<std::string> w;
    for (std::string s; f >> s;) w.push_back(s);
    size_t dash = 6;
    while (dash < w.size() && w[dash] != "-") ++dash;
    if (dash + 3 >= w.size() || w[dash + 1] != "cgroup" || !comma_word(w[dash + 3], controller))
      continue;
    std::string root = mountinfo_unescape(w[3]), point = mountinfo_unescape(w[4]), rest;
    if (below(group, root, rest))
      found = point + rest;
    else
      elsewhere = fmt::format("from {} at {}", root, point);
  }
  if (!found.empty()) return found;
  if (!elsewhere.empty())
    return fail(
        "the cgroup v1 {} hierarchy is mounted only {}, which does not hold this process's group "
        "{}",
        controller, elsewhere, group);
  return fail("no cgroup v1 {} hierarchy is mounted (/proc/self/mountinfo)", controller);
}

Result<std::string> own_v1_group_dir(std::string_view controller) {
  return v1_group_dir(read_or_empty("/proc/self/cgroup"), read_or_empty("/proc/self/mountinfo"),
                      controller);
}

}  // namespace aw
