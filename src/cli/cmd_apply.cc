// `awaywork apply ID [--json]`: publish a recorded unit again (or for the first time) from its
// kept outputs (unit/apply_unit.h assembles and publishes it; this parses, calls it with the
// forge's publishers and renders). Only an accepted verdict is applied; a unit already applied is
// found by its marker and left alone.
#include <unistd.h>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/json_write.h"
#include "cli/commands.h"
#include "config/config.h"
#include "forge/gitlab/publisher.h"
#include "forge/pr_publisher.h"
#include "forge/pr_source.h"
#include "forge/publisher.h"
#include "record/store.h"
#include "unit/apply_unit.h"
#include "unit/pipeline.h"

namespace aw {

void print_applied(const GlobalOptions& g, const std::string& id, const Applied& a) {
  const PublishResult& r = a.result;
  if (g.json) {
    fmt::print("{}\n", json_text(nlohmann::json{{"id", id},
                                                {"applied", true},
                                                {"already_applied", r.already_applied},
                                                {"branch", r.branch},
                                                {"commit", r.commit},
                                                {"target", a.target},
                                                {"pull_request", a.pull_url},
                                                {"posted", a.posted},
                                                {"already", a.already}},
                                 2));
  } else if (!a.pull_url.empty() || !a.compare_url.empty() || !a.posted.empty()) {
    fmt::print("applied: {} at {} on {}; pull request {}; posted now: {}\n", r.branch,
               r.commit.substr(0, 12), a.target,
               a.pull_url.empty() ? "(drafts refused: " + a.compare_url + ")" : a.pull_url,
               a.posted.empty() ? "nothing (all found by marker)"
                                : fmt::format("{}", fmt::join(a.posted, ", ")));
  } else if (r.already_applied) {
    fmt::print("already applied: {} at {} on {}; nothing done\n", r.branch, r.commit.substr(0, 12),
               a.target);
  } else {
    fmt::print("applied: {} at {} on {}\n", r.branch, r.commit.substr(0, 12), a.target);
  }
}

int cmd_apply(const GlobalOptions& g, const std::string& id, const std::string& from) {
  if (id.empty() == from.empty()) {
    fmt::print(stderr, "awaywork apply: give a unit id or --from DIR (one of them)\n");
    return kExitUsage;
  }
  if (!from.empty()) return cmd_apply_artifact(g, from);
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork apply: {}\n", cfg.error().message);
    return kExitUsage;
  }
  auto store = Store::open(state_dir_of(*cfg));
  if (!store) {
    fmt::print(stderr, "awaywork apply: {}\n", store.error().message);
    return kExitUsage;
  }
  recover_abandoned(*cfg, *store);
  auto unit = store->get(id);
  if (!unit) {
    fmt::print(stderr, "awaywork apply: {}\n", unit.error().message);
    return kExitUsage;
  }
  bool refused = unit->verdict != "accepted";
  // A follow-up of a pull request publishes on that pull request's branch (forge/pr_publisher.h:
  // one fast-forward commit, its replies, the re-request), never as a new pull request; the unit
  // room cannot tell one (it knows no forge), so cli does.
  Result<OpenPublisher> publishers = any_forge_publishers(forge_publishers(), nullptr);
  // Not wrapped in any_forge_publishers: for a gitlab: project it would answer with GitLab's
  // issue publisher (a new merge request) instead of the merge request's own.
  if (is_follow_up(unit->notes) && !refused) publishers = follow_up_publishers(*cfg, *unit);
  Result<Applied> a = publishers ? apply_unit(*cfg, *store, *unit, *publishers)
                                 : Result<Applied>(tl::unexpected(publishers.error()));
  if (!a) {
    if (g.json)
      fmt::print("{}\n", json_text(nlohmann::json{{"id", unit->id},
                                                  {"applied", false},
                                                  {"error", a.error().message}},
                                   2));  // any bytes: no throw
    fmt::print(stderr, "awaywork apply: {}\n", a.error().message);
    return refused ? kExitRefused : kExitFailed;
  }
  print_applied(g, unit->id, *a);
  return kExitDone;
}

}  // namespace aw
