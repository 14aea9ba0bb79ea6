// The artifact commands of the reusable workflow's three jobs (docs/scale-out.md):
// `export ID DIR` (the agent job's, also `run --artifact DIR`), `check --from DIR` (the check
// job's: the output check again on the folder alone) and `apply --from DIR` (the apply job's).
#include <nlohmann/json.hpp>

#include "base/json_write.h"
#include "cli/commands.h"
#include "config/config.h"
#include "forge/pr_publisher.h"
#include "forge/publisher.h"
#include "record/store.h"
#include "unit/artifact.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

Result<Config> config_of(const GlobalOptions& g) {
  return load_given_config(g.config);
}

void print_verdict(const GlobalOptions& g, const Artifact& a, const Verdict& v) {
  if (g.json) {
    nlohmann::json j = to_json(v);
    j["artifact"] = {{"unit", a.record.id}, {"manifest_sha256", a.sha256}};
    fmt::print("{}\n", json_text(j, 2));
  } else {
    fmt::print("artifact of unit {} (manifest sha256 {})\n{}", a.record.id, a.sha256,
               render_text(v));
  }
}

int refused(const GlobalOptions& g, const char* command, const std::string& why) {
  // why may hold bytes that are not UTF-8 (a folder's name, a file's): replaced, never a throw.
  if (g.json) fmt::print("{}\n", json_text(nlohmann::json{{"accepted", false}, {"error", why}}, 2));
  fmt::print(stderr, "awaywork {}: {}\n", command, why);
  return kExitRefused;
}

}  // namespace

int cmd_export(const GlobalOptions& g, const std::string& id, const std::string& dir) {
  auto written = [&]() -> Result<UnitRecord> {
    AW_TRY(Config cfg, config_of(g));
    AW_TRY(Store store, Store::open(state_dir_of(cfg)));
    AW_TRY(UnitRecord u, store.get(id));
    AW_CHECK(export_artifact(u, dir));
    return u;
  }();
  if (!written) {
    fmt::print(stderr, "awaywork export: {}\n", written.error().message);
    return kExitUsage;
  }
  fmt::print("{}\n", g.json ? json_text(nlohmann::json{{"id", written->id}, {"artifact", dir}}, 2)
                            : fmt::format("artifact of unit {} written to {}", written->id, dir));
  return kExitDone;
}

int cmd_check_artifact(const GlobalOptions& g, const CheckOptions& o) {
  auto a = load_artifact(o.from);
  if (!a) return refused(g, "check", a.error().message);
  Result<Verdict> v = fail("");
  if (!o.bounds.empty()) {  // the bounds named on the command line, not the config's
    auto bounds = load_bounds(o.bounds);
    if (!bounds) {
      fmt::print(stderr, "awaywork check: {}\n", bounds.error().message);
      return kExitUsage;
    }
    RequestContext ctx;
    ctx.repo = a->record.forge_repo.empty() ? a->record.repo : a->record.forge_repo;
    if (a->record.issue > 0) ctx.issue = a->record.issue;
    ctx.base = a->record.base_ref;
    v = recheck_artifact(*a, *bounds, ctx);
  } else {
    auto cfg = config_of(g);
    if (!cfg) {
      fmt::print(stderr, "awaywork check: {}\n", cfg.error().message);
      return kExitUsage;
    }
    v = recheck_artifact(*cfg, *a);
    if (!v) return refused(g, "check", v.error().message);
  }
  print_verdict(g, *a, *v);
  return v->accepted ? kExitDone : kExitRefused;
}

int cmd_apply_artifact(const GlobalOptions& g, const std::string& dir) {
  auto cfg = config_of(g);
  if (!cfg) {
    fmt::print(stderr, "awaywork apply: {}\n", cfg.error().message);
    return kExitUsage;
  }
  // The reusable workflow's apply job: here an installation token inside GitHub Actions is
  // github-actions[bot]'s (forge/self_login.h); watch, serve and a plain run never say so.
  cfg->workflow_job = true;
  // A follow-up's artifact (`run --pr NAME#N --artifact DIR`) publishes on its pull request's
  // branch as `apply ID` of a follow-up does (forge/pr_publisher.h), never as a new pull request:
  // the pull request its record names is read again and must still be awaywork's own, from the
  // repository itself, on the branch the record names; the commit is a fast-forward of the one
  // the unit started from, never forced. An artifact that cannot be read is apply_artifact's to
  // refuse, below.
  OpenPublisher publishers = forge_publishers();
  if (auto a = load_artifact(dir); a && is_follow_up(a->record.notes)) {
    auto follow = follow_up_publishers(*cfg, a->record);
    if (!follow) {
      fmt::print(stderr, "awaywork apply: artifact {}: {}\n", dir, follow.error().message);
      return kExitFailed;
    }
    publishers = std::move(*follow);
  }
  Verdict v;
  bool was_refused = false;
  auto r = apply_artifact(*cfg, dir, publishers, &v, &was_refused);
  if (!r) {
    if (was_refused && !v.refusals.empty()) fmt::print(stderr, "{}", render_text(v));
    if (was_refused) return refused(g, "apply", r.error().message);
    fmt::print(stderr, "awaywork apply: {}\n", r.error().message);
    return kExitFailed;
  }
  if (r->nothing) {
    fmt::print(
        "{}\n",
        g.json ? json_text(
                     nlohmann::json{{"id", r->unit.id}, {"applied", false}, {"nothing", true}}, 2)
               : "the artifact's patch is empty: nothing to publish");
    return kExitDone;
  }
  print_applied(g, r->unit.id, r->applied);
  return kExitDone;
}

}  // namespace aw
