// Resolving the owner's sandbox config and the unit's paths into a SandboxPlan (host side, before
// any phase runs, so links the agent plants later cannot change what gets bound or hidden).
#include "isolate/sandbox/plan.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>

#include "isolate/sandbox/view.h"
#include "isolate/sandbox/view_paths.h"

namespace aw {

const std::vector<std::string>& builtin_hidden_in_home() {
  static const std::vector<std::string> paths = {".ssh",
                                                 ".gnupg",
                                                 ".netrc",
                                                 ".git-credentials",
                                                 ".docker",
                                                 ".kube",
                                                 ".aws",
                                                 ".azure",
                                                 ".config/gh",
                                                 ".password-store",
                                                 ".claude",
                                                 ".claude.json",
                                                 ".codex",
                                                 ".config/gcloud",
                                                 ".npmrc",
                                                 ".pypirc",
                                                 ".cargo/credentials",
                                                 ".cargo/credentials.toml"};
  return paths;
}

std::vector<SandboxPlan::Bridge> active_bridges(const SandboxPlan& plan) {
  if (plan.network == Network::host) return {};
  std::vector<SandboxPlan::Bridge> all = plan.bridges;
  if (plan.network == Network::allowlist) all.push_back({plan.proxy_socket, plan.proxy_port});
  return all;
}

namespace sandbox {

Result<std::string> normalize(const std::string& path) {
  if (path.empty() || path[0] != '/') return fail("not an absolute path: '{}'", path);
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

Result<std::string> expand(const std::string& path, const std::string& home) {
  if (path == "~" || path.rfind("~/", 0) == 0) {
    if (home.empty()) return fail("'{}': no owner home to expand ~ against", path);
    return normalize(home + path.substr(1));
  }
  return normalize(path);
}

std::string resolved(const std::string& path) {
  std::string head = path, tail;
  char buf[PATH_MAX];
  while (!head.empty() && head != "/") {
    if (::realpath(head.c_str(), buf))
      return std::string(buf == std::string("/") ? "" : buf) + tail;
    size_t slash = head.rfind('/');
    tail = head.substr(slash) + tail;
    head = head.substr(0, slash);
  }
  return path;
}

bool inside(const std::string& path, const std::string& dir) {
  if (dir == "/") return !path.empty() && path[0] == '/';
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

}  // namespace sandbox

using sandbox::expand;
using sandbox::inside;
using sandbox::resolved;

namespace {

// A writable path must never open up the owner's own secrets or whole home: a provider's state
// folder is per unit, never the owner's real ~/.claude or ~/.codex.
Status check_writable(const std::string& path, const SandboxPaths& unit) {
  if (path == "/" || (!unit.owner_home.empty() && resolved(unit.owner_home) == path))
    return fail("sandbox writable path {} would make the whole home or root writable", path);
  if (!unit.owner_home.empty())
    for (const auto& h : builtin_hidden_in_home()) {
      std::string secret = resolved(unit.owner_home + "/" + h);
      if (inside(path, secret) || inside(secret, path))
        return fail("sandbox writable path {} would expose the owner's {} (use a per-unit folder)",
                    path, secret);
    }
  return {};
}

}  // namespace

Result<SandboxPlan> make_plan(const SandboxConfig& config, const SandboxPaths& unit) {
  SandboxPlan plan;
  plan.mode = config.mode;
  plan.network = config.network;
  plan.allow = config.allow;
  plan.limits = config.limits;
  plan.apply_limits = config.limits.enabled;
  plan.owner_home = unit.owner_home;
  std::vector<std::string> writable = {unit.clone, unit.home};
  writable.insert(writable.end(), unit.provider_state.begin(), unit.provider_state.end());
  writable.insert(writable.end(), config.writable.begin(), config.writable.end());
  for (const auto& w : writable) {
    if (w.empty()) continue;
    AW_TRY(auto p, with_context(expand(w, unit.owner_home), "sandbox writable path"));
    // Bound by fd without following links: store the real path the host has now.
    std::string r = resolved(p);
    AW_CHECK(check_writable(r, unit));
    plan.writable.push_back(r);
  }
  std::vector<std::string> hidden = config.hidden;
  if (!unit.owner_home.empty())
    for (const auto& h : builtin_hidden_in_home()) hidden.push_back(unit.owner_home + "/" + h);
  for (const auto& own : {unit.config_dir, unit.state_dir}) hidden.push_back(own);
  hidden.insert(hidden.end(), unit.secret_files.begin(), unit.secret_files.end());
  for (const auto& h : hidden) {
    if (h.empty()) continue;
    AW_TRY(auto p, with_context(expand(h, unit.owner_home), "sandbox hidden path"));
    plan.hidden.push_back(p);
    // A hidden link hides what it points to as well, wherever that is.
    std::string r = resolved(p);
    if (r != p) plan.hidden.push_back(r);
  }
  std::sort(plan.hidden.begin(), plan.hidden.end());
  plan.hidden.erase(std::unique(plan.hidden.begin(), plan.hidden.end()), plan.hidden.end());
  AW_CHECK(sandbox::add_readable(config, unit, plan));
  sandbox::add_toolchains(unit, plan);
  plan.root_only = sandbox::root_only_files(unit.root_owner);
  return plan;
}

}  // namespace aw
