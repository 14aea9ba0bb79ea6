// `awaywork replay ID [--latest]`: the recorded unit's repository, base commit, task, agent and
// profile, run again as a new unit. Nothing of the old unit is reused: its clone may have been
// left by a lost or hostile run, so the new unit clones afresh like any other.
#include "cli/commands.h"
#include "cli/signals.h"
#include "config/config.h"
#include "forge/gitlab/publisher.h"
#include "forge/publisher.h"
#include "record/store.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

Result<RunRequest> replay_request(const Config& cfg, const std::string& id, bool latest) {
  AW_TRY(Store store, Store::open(state_dir_of(cfg)));
  recover_abandoned(cfg, store);
  AW_TRY(UnitRecord u, store.get(id));
  if (u.state == UnitState::running)
    return fail("unit {} is still running; replay it once it has ended", u.id);
  if (u.prompt.empty()) return fail("unit {} has no recorded task to replay", u.id);
  RunRequest req;
  // An issue's unit repeats its recorded task against its forge repository; the issue is not
  // read again nor posted to (the replay is the owner's, not the issue's).
  req.repo = u.repo;
  req.prompt = u.prompt;
  req.agent = u.agent;
  req.profile = u.profile;
  req.base = u.base_ref;
  if (!latest) req.base_commit = u.base_commit;
  req.replay_of = u.id;
  req.origin.source = "replay";
  // A repository given as a path was recorded as typed (maybe relative to another folder): its
  // source is the absolute path. A configured or forge repository is found by its name again.
  if (!cfg.repos.count(u.repo) && u.forge_repo.empty()) req.repo = u.source;
  return req;
}

}  // namespace

int cmd_replay(const GlobalOptions& g, const std::string& id, bool latest) {
  auto interrupted = install_interrupt_handlers();
  auto cfg = load_given_config(g.config);
  if (!cfg) {
    fmt::print(stderr, "awaywork: {}\n", cfg.error().message);
    return kExitUsage;
  }
  auto req = replay_request(*cfg, id, latest);
  if (!req) {
    fmt::print(stderr, "awaywork replay: {}\n", req.error().message);
    return kExitUsage;
  }
  // A forge repository's unit is published to its forge, as the first one was.
  return run_and_report(g, *cfg, *req, any_forge_publishers(forge_publishers(), nullptr),
                        interrupted, "replay");
}

}  // namespace aw
