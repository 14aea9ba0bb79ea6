#include "unit/apply_unit.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_read.h"
#include "git/git.h"
#include "record/store.h"
#include "unit/apply.h"

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

}  // namespace

Result<Applied> apply_unit(const Config& cfg, Store& store, UnitRecord& u,
                           const OpenPublisher& publishers) {
  if (u.state == UnitState::running) return fail("unit {} is still running", u.id);
  if (u.verdict != "accepted")
    return fail("unit {} was not accepted by the output check (verdict '{}'); nothing applied",
                u.id, u.verdict.empty() ? "none" : u.verdict);
  std::string patch_file = u.run_dir + "/patch.diff";
  AW_TRY(std::string patch, with_context(read_file(patch_file), "the unit's patch"));
  if (patch.empty()) return fail("unit {} changed nothing: there is nothing to apply", u.id);
  AW_TRY(std::vector<std::string> paths, checked_paths(u.run_dir + "/verdict.json"));
  ApplyInput in;
  if (auto it = cfg.repos.find(u.repo); it != cfg.repos.end()) in.repo = it->second;
  // A forge repository publishes through the forge's publisher; any other through git's own.
  // The mirror (the unit's source) lends its objects; the remote is pushed to.
  std::unique_ptr<Publisher> forge;
  if (publishers) {
    AW_TRY(forge, publishers(cfg, in.repo));
  }
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

}  // namespace aw
