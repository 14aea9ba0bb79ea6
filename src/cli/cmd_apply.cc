// `awaywork apply ID [--json]`: publish a recorded unit again (or for the first time) from its
// kept outputs: runs/<id>/patch.diff and the checked paths of runs/<id>/verdict.json. Only an
// accepted verdict is applied; a unit already applied is found by its marker and left alone.
#include <unistd.h>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_read.h"
#include "cli/commands.h"
#include "config/config.h"
#include "forge/pr_source.h"
#include "forge/publisher.h"
#include "git/git.h"
#include "record/store.h"
#include "unit/apply.h"
#include "unit/pipeline.h"

namespace aw {

namespace {

// The paths the check accepted, as recorded.
Result<std::vector<std::string>> checked_paths(const std::string& verdict_file) {
  AW_TRY(std::string text, read_file(verdict_file, 16u << 20));
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("paths") || !j["paths"].is_array())
    return fail("{} has no list of checked paths", verdict_file);
  JsonRead r(j, verdict_file);  // a wrongly typed field is an Error naming it, never a throw
  AW_TRY(bool accepted, r.bool_or("accepted", false));
  if (!accepted) return fail("{} is not an accepted verdict", verdict_file);
  return r.strings("paths");
}

Result<Applied> apply_unit(const Config& cfg, Store& store, UnitRecord& u) {
  if (u.state == UnitState::running) return fail("unit {} is still running", u.id);
  if (u.verdict != "accepted")
    return fail("unit {} was not accepted by the output check (verdict '{}'); nothing applied",
                u.id, u.verdict.empty() ? "none" : u.verdict);
  std::string patch_file = u.run_dir + "/patch.diff";
  AW_TRY(std::string patch, with_context(read_file(patch_file), "the unit's patch"));
  if (patch.empty()) return fail("unit {} changed nothing: there is nothing to apply", u.id);
  if (is_follow_up(u.notes))
    return fail(
        "unit {} follows up a pull request: `awaywork apply` of a follow-up is not built yet "
        "(it would open a new pull request); `awaywork run --pr NAME#N` makes a new follow-up",
        u.id);
  AW_TRY(std::vector<std::string> paths, checked_paths(u.run_dir + "/verdict.json"));
  ApplyInput in;
  if (auto it = cfg.repos.find(u.repo); it != cfg.repos.end()) in.repo = it->second;
  // A forge repository publishes through the forge's publisher; any other through git's own.
  // The mirror (the unit's source) lends its objects; the remote is pushed to.
  AW_TRY(std::unique_ptr<Publisher> forge, forge_publishers()(cfg, in.repo));
  UsageOnExit usage{store, forge.get()};
  if (forge) {
    in.record = &u;
    in.mirror_dir = u.source;
    AW_TRY(in.requests, load_checked_requests(u.run_dir + "/requests.json"));
  }
  AW_TRY(in.source, open_source(u.source));
  in.label = u.repo;
  in.unit_id = u.id;
  in.prompt = u.prompt;
  in.base_ref = u.base_ref;
  in.base_commit = u.base_commit;
  in.patch = std::move(patch);
  in.paths = std::move(paths);
  in.scratch_dir = u.run_dir + "/apply";
  auto a = apply_checked(in, forge.get());
  bool changed =
      a && (u.branch != a->result.branch || u.commit != a->result.commit || !a->posted.empty());
  if (changed) {
    note_applied(*a, u);
    u.notes.push_back(fmt::format("applied by `awaywork apply`: {} at {} on {}", a->result.branch,
                                  a->result.commit.substr(0, 12), a->target));
  }
  if (forge) {  // the progress comment ends as `run` would have ended it
    auto ended =
        a ? forge->end_note(u, a->pull_url.empty() ? u.pull_request : a->pull_url, "done", "")
          : forge->end_note(u, "", "failed", "apply: " + a.error().message);
    if (!ended) u.notes.push_back("progress comment (apply): " + ended.error().message);
    changed = changed || !ended;
  }
  if (changed) AW_CHECK(with_context(store.save(u), "saving the record"));
  return a;
}

}  // namespace

void print_applied(const GlobalOptions& g, const std::string& id, const Applied& a) {
  const PublishResult& r = a.result;
  if (g.json) {
    fmt::print("{}\n", nlohmann::json{{"id", id},
                                      {"applied", true},
                                      {"already_applied", r.already_applied},
                                      {"branch", r.branch},
                                      {"commit", r.commit},
                                      {"target", a.target},
                                      {"pull_request", a.pull_url},
                                      {"posted", a.posted},
                                      {"already", a.already}}
                           .dump(2));
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
  auto cfg = load_config(g.config.empty() ? default_config_path() : g.config, !g.config.empty());
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
  auto a = apply_unit(*cfg, *store, *unit);
  if (!a) {
    if (g.json)
      fmt::print(
          "{}\n",
          nlohmann::json{{"id", unit->id}, {"applied", false}, {"error", a.error().message}}.dump(
              2, ' ', false, nlohmann::json::error_handler_t::replace));  // any bytes: no throw
    fmt::print(stderr, "awaywork apply: {}\n", a.error().message);
    return refused ? kExitRefused : kExitFailed;
  }
  print_applied(g, unit->id, *a);
  return kExitDone;
}

}  // namespace aw
