#include "config/repos.h"

#include <cctype>

#include <fmt/format.h>

namespace aw {

namespace {

std::string ascii_lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Result<RepoConfig> find_forge_repo(const Config& cfg, const std::string& name) {
  if (auto it = cfg.repos.find(name); it != cfg.repos.end()) {
    if (it->second.forge.github.empty())
      return fail("repo {} is not a forge repository (it has no github: OWNER/REPO)", name);
    return it->second;
  }
  for (const auto& [_, r] : cfg.repos)
    if (!r.forge.github.empty() && ascii_lower(r.forge.github) == ascii_lower(name)) return r;
  std::string names;
  for (const auto& [n, r] : cfg.repos)
    if (!r.forge.github.empty())
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", n, r.forge.github);
  return fail("'{}' is neither a repos: name nor the github: of one; forge repositories: {}", name,
              names.empty() ? "none (add repos: NAME: {github: OWNER/REPO})" : names);
}

}  // namespace aw
