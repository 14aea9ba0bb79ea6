#include <algorithm>
#include <cstring>

#include "proc/runner.h"

namespace aw {

namespace {

constexpr const char* kAllowed[] = {"PATH", "TERM",   "LANG", "LC_ALL",
                                    "HOME", "TMPDIR", "USER", "LOGNAME"};

// The first "name=value" of `from` (getenv's rule when a name appears twice), or null.
const char* lookup(char** from, const std::string& name) {
  if (!from) return nullptr;
  for (char** e = from; *e; ++e)
    if (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=') return *e;
  return nullptr;
}

bool valid_name(const std::string& name) {
  return !name.empty() && name.find('=') == std::string::npos;
}

}  // namespace

std::vector<std::string> build_env(char** from, const std::vector<std::string>& extra_names,
                                   const std::vector<std::pair<std::string, std::string>>& set) {
  std::vector<std::string> out;
  auto find = [&](const std::string& name) {
    return std::find_if(out.begin(), out.end(), [&](const std::string& kv) {
      return kv.size() > name.size() && kv.compare(0, name.size(), name) == 0 &&
             kv[name.size()] == '=';
    });
  };
  auto copy = [&](const std::string& name) {
    if (!valid_name(name) || find(name) != out.end()) return;
    if (const char* kv = lookup(from, name)) out.emplace_back(kv);
  };
  for (const char* name : kAllowed) copy(name);
  for (const auto& name : extra_names) copy(name);
  for (const auto& [name, value] : set) {
    if (!valid_name(name)) continue;
    auto it = find(name);
    if (it != out.end())
      *it = name + "=" + value;
    else
      out.push_back(name + "=" + value);
  }
  return out;
}

}  // namespace aw
