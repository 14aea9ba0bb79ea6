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
    if (it->second.forge.path().empty())
      return fail(
          "repo {} is not a forge repository (it has no github: OWNER/REPO nor gitlab: "
          "GROUP/PROJECT)",
          name);
    return it->second;
  }
  // GitHub's names are case-insensitive, and so are GitLab's paths.
  for (const auto& [_, r] : cfg.repos)
    if (!r.forge.path().empty() && ascii_lower(r.forge.path()) == ascii_lower(name)) return r;
  std::string names;
  for (const auto& [n, r] : cfg.repos)
    if (!r.forge.path().empty())
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", n, r.forge.path());
  return fail(
      "'{}' is neither a repos: name nor the github: or gitlab: of one; forge repositories: {}",
      name, names.empty() ? "none (add repos: NAME: {github: OWNER/REPO})" : names);
}

}  // namespace aw
