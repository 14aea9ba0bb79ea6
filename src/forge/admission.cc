#include "forge/admission.h"

#include <fmt/format.h>

#include <algorithm>

#include "forge/client.h"

namespace aw {

namespace {

bool listed(const std::vector<std::string>& list, const std::string& login) {
  // Logins are case-insensitive on GitHub.
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  std::string l = lower(login);
  return std::any_of(list.begin(), list.end(), [&](const std::string& x) { return lower(x) == l; });
}

}  // namespace

Admission::Admission(TrustConfig trust, int64_t stop_after, std::string self_login,
                     RoleLookup roles, int64_t now_seconds)
    : trust_(std::move(trust)),
      stop_after_(stop_after),
      self_(std::move(self_login)),
      roles_(std::move(roles)),
      now_(now_seconds) {}

Admitted Admission::check(const ForgeUser& actor) {
  if (auto it = seen_.find(actor.login); it != seen_.end()) return it->second;
  Admitted a;
  if (stop_after_ > 0 && now_ > stop_after_) {
    a.reason = "past the repository's stop_after, nobody is admitted";
  } else if (actor.login == "github-actions[bot]") {
    a.reason = "github-actions[bot], never admitted";
  } else if (!self_.empty() && listed({self_}, actor.login)) {
    a.reason = "awaywork's own login, never admitted";
  } else if (actor.bot) {
    a.admitted = listed(trust_.bots, actor.login);
    a.reason = a.admitted ? "listed bot" : "a bot not listed under trust.bots, not admitted";
  } else if (listed(trust_.users, actor.login)) {
    a = {true, "listed user"};
  } else if (auto role = roles_(actor.login); !role) {
    a.reason = "role unknown (" + role.error().message + "), not admitted";
  } else {
    a.admitted = std::find(trust_.roles.begin(), trust_.roles.end(), *role) != trust_.roles.end();
    a.reason = fmt::format("role {}{}", *role, a.admitted ? "" : ", not admitted");
  }
  seen_[actor.login] = a;
  return a;
}

RoleLookup github_roles(GitHub& gh, const std::string& owner_repo) {
  return [&gh, owner_repo](const std::string& login) -> Result<std::string> {
    // The login came from the forge's JSON: only GitHub's own login characters go in a path.
    bool plain = !login.empty() && login.size() <= 39;
    for (char c : login) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '-');
    if (!plain) return fail("'{}' is not a GitHub login", login);
    std::string target = fmt::format("/repos/{}/collaborators/{}/permission", owner_repo, login);
    AW_TRY(ApiReply r, gh.call("GET", target));
    if (r.status == 404) return std::string("none");
    if (r.status != 200) return fail("{}", gh.describe("GET", target, r));
    return role_from_json(r.body, "GET " + target);
  };
}

}  // namespace aw
