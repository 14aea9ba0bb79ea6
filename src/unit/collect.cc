// After the last phase: collect the patch and the requests (as data), check them against the
// repository's bounds, then with the owner's check plugins, and publish only what both accepted.
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "check/check.h"
#include "check/redact.h"
#include "unit/apply.h"
#include "unit/check_plugins.h"
#include "unit/steps.h"

namespace aw {

namespace {

// requests.jsonl is optional; when present it is read without following links, size-capped.
Result<std::optional<std::string>> read_requests(const UnitPaths& paths) {
  std::string file = paths.outputs + "/requests.jsonl";
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 && errno == ENOENT) return std::optional<std::string>{};
  AW_TRY(std::string text, read_requests_file(file));
  return std::optional<std::string>(std::move(text));
}

std::string refusal_line(const Refusal& r) {
  std::string where = r.path.empty() ? r.source : r.path;
  if (r.line > 0) where += fmt::format(":{}", r.line);
  return fmt::format("{} {}: {}", r.rule, where, r.detail);
}

Verdict check(const Config* cfg, const Target& t, const Patch& patch,
              const std::optional<std::string>& requests, const RunDir& dir, UnitRecord& u,
              const std::vector<std::string>& secrets) {
  RequestContext ctx;
  ctx.secrets = secrets;
  ctx.repo = t.request_repo;
  if (u.issue > 0) ctx.issue = u.issue;
  ctx.base = t.base_ref;
  ctx.omitted = patch.omitted;
  std::optional<std::string_view> req;
  if (requests) req = *requests;
  Verdict v = check_outputs(patch.text, req, t.repo.bounds, ctx);
  // The owner's check plugins, asked only once awaywork's own check accepted (a refused patch is
  // refused already, and an accepted one holds none of the unit's secrets).
  if (cfg) check_with_plugins(*cfg, t.request_repo, t.base_ref, patch.text, u, secrets, v);
  (void)write_file(dir.verdict(), json_text(to_json(v), 2) + "\n", 0600);
  u.verdict = v.accepted ? "accepted" : "refused";
  for (const auto& r : v.refusals) u.refusals.push_back(refusal_line(r));
  if (v.accepted) {
    auto arr = nlohmann::json::array();
    for (const auto& r : v.requests) arr.push_back(to_json(r));
    (void)write_file(dir.requests(), json_text(arr, 2) + "\n", 0600);
    u.requests = static_cast<int>(v.requests.size());
  }
  return v;
}

}  // namespace

Result<Applied> apply_verdict(const Target& t, Publisher* pub, UnitRecord& u,
                              const std::string& patch, const Verdict& v,
                              const std::string& scratch_dir) {
  ApplyInput in{t.repo,
                t.source,
                t.label,
                u.id,
                u.prompt,
                t.base_ref,
                u.base_commit,
                patch,
                v.paths,
                scratch_dir,
                &u,
                v.requests,
                pub ? t.source.git_dir : ""};
  return apply_checked(in, pub);
}

Outcome collect_check_apply(const Target& t, Publisher* pub, const RunDir& dir,
                            const UnitPaths& paths, const Clone& clone, UnitRecord& u,
                            const std::vector<std::string>& secrets, bool publish,
                            const Config* cfg) {
  auto patch = make_patch(clone);
  if (!patch) return {UnitState::failed, "collect: " + patch.error().message};
  // Kept redacted: a patch that needed it holds a secret, which the check refuses, so the kept
  // copy is never the one published.
  // Nothing is published that is not kept: the record's patch is what a reader checks.
  if (auto kept = write_file(dir.patch(), redact_all(patch->text, secrets), 0600); !kept)
    return {UnitState::failed,
            "collect: keeping the patch: " + kept.error().message + "; nothing was published"};
  u.patch_stat = patch->stat;
  u.patch_files = static_cast<int>(patch->paths.size());
  u.omitted = patch->omitted;
  auto requests = read_requests(paths);
  if (!requests) {
    u.verdict = "refused";
    u.refusals.push_back("request.file requests.jsonl: " + requests.error().message);
    return {UnitState::refused, "the output check refused the requests file"};
  }
  Verdict v = check(cfg, t, *patch, *requests, dir, u, secrets);
  if (!v.accepted)
    return {UnitState::refused,
            fmt::format("the output check refused the agent's outputs ({} reason{}); nothing "
                        "was published",
                        v.refusals.size(), v.refusals.size() == 1 ? "" : "s")};
  if (patch->text.empty()) {
    u.notes.push_back("the agent changed nothing: no branch made");
    return {UnitState::done, ""};
  }
  if (v.paths != patch->paths)
    return {UnitState::failed, "apply: the checked paths differ from the collected patch's paths"};
  if (!publish) {
    u.notes.push_back("held, not published (run --artifact): `awaywork apply --from DIR` does");
    return {UnitState::done, ""};
  }
  auto applied = apply_verdict(t, pub, u, patch->text, v, dir.apply);
  if (!applied) return {UnitState::failed, "apply: " + applied.error().message};
  note_applied(*applied, u);
  if (applied->target != t.source.git_dir) u.notes.push_back("published to " + applied->target);
  return {UnitState::done, ""};
}

}  // namespace aw
