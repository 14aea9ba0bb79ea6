// Who may ask awaywork for work and whose text reaches the agent (DESIGN.md section 10): the
// roles of the repository's `trust` (from the collaborator permission endpoint), listed users,
// listed bots; never github-actions[bot] nor awaywork's own login (they would loop); nobody after
// `stop_after`. One decision per actor, with its reason ("role read, not admitted"), for the
// comments of a task here and for watch's triggers.
//
//   Admission adm(cfg.forge.trust, cfg.forge.stop_after, self_login, role_lookup, now);
//   Admitted a = adm.check(ForgeUser{"octocat"});  // a.admitted, a.reason
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "base/result.h"
#include "config/config.h"
#include "forge/model.h"

namespace aw {

struct Admitted {
  bool admitted = false;
  std::string reason;  // "role write", "listed user", "role read, not admitted", ...
};

// The role of login on the repository ("admin", "maintain", "write", "triage", "read", "none").
using RoleLookup = std::function<Result<std::string>(const std::string& login)>;

class Admission {
 public:
  Admission(TrustConfig trust, int64_t stop_after, std::string self_login, RoleLookup roles,
            int64_t now_seconds);
  // Asks the forge at most once per login; a lookup failure refuses, with the reason.
  Admitted check(const ForgeUser& actor);

 private:
  TrustConfig trust_;
  int64_t stop_after_;
  std::string self_;
  RoleLookup roles_;
  int64_t now_;
  std::map<std::string, Admitted> seen_;
};

class GitHub;
// The role lookup against GET /repos/OWNER/REPO/collaborators/LOGIN/permission (404 = "none").
RoleLookup github_roles(GitHub& gh, const std::string& owner_repo);

}  // namespace aw
