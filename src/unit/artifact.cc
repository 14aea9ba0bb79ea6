#include "unit/artifact.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/fs.h"
#include "base/json_write.h"
#include "base/sha256.h"
#include "record/store.h"
#include "unit/check_plugins.h"
#include "unit/steps.h"

namespace aw {

namespace {

using nlohmann::json;

constexpr size_t kMaxPatch = 64u << 20, kMaxSmall = 16u << 20;

// The checked requests (runs/<id>/requests.json, a JSON array) as the JSON lines the check reads.
Result<std::string> requests_jsonl(const std::string& file) {
  auto text = read_file(file, kMaxSmall);
  if (!text) return std::string();  // a unit without requests keeps no file
  auto arr = json::parse(*text, nullptr, false);
  if (!arr.is_array()) return fail("{} is not a list of requests", file);
  std::string out;
  for (json r : arr) {
    if (!r.is_object()) return fail("{}: a request is not an object", file);
    r.erase("line");
    out += json_text(r) + "\n";
  }
  return out;
}

Status empty_dir(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return make_dirs(dir, 0700);
  if (!S_ISDIR(st.st_mode)) return fail("{} exists and is not a folder", dir);
  std::error_code ec;
  if (!std::filesystem::is_empty(dir, ec))
    return fail("{} is not empty; name a new folder for the artifact", dir);
  return {};
}

Result<std::string> artifact_file(const std::string& dir, const std::string& name) {
  return with_context(read_file(dir + "/" + name, name == "patch.diff" ? kMaxPatch : kMaxSmall),
                      fmt::format("artifact {}: {}", dir, name));
}

// A name from the folder as an error shows it: control characters escaped, bytes that are not
// UTF-8 replaced (`check --from --json` puts the error in JSON, whose dump throws on those).
std::string json_escaped(const std::string& name) {
  std::string q = json_text(json(name));
  return q.substr(1, q.size() - 2);  // without the quotes
}

// Exactly the manifest and the four files: anything else in the folder is refused by name.
Status only_known_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    const auto& known = kArtifactFiles;
    if (name != "manifest.json" && std::find(known.begin(), known.end(), name) == known.end())
      return fail("artifact {}: unexpected file '{}' (an artifact holds only manifest.json, {})",
                  dir, json_escaped(name), fmt::join(kArtifactFiles, ", "));
  }
  if (ec) return fail("artifact {}: {}", dir, ec.message());
  return {};
}

}  // namespace

Status export_artifact(const UnitRecord& u, const std::string& dir) {
  if (u.verdict.empty())
    return fail("unit {} never reached the output check ({}): it has no artifact", u.id,
                to_string(u.state));
  AW_CHECK(empty_dir(dir));
  std::map<std::string, std::string> files;
  AW_TRY(files["patch.diff"], read_file(u.run_dir + "/patch.diff", kMaxPatch));
  AW_TRY(files["requests.jsonl"], requests_jsonl(u.run_dir + "/requests.json"));
  AW_TRY(files["verdict.json"], read_file(u.run_dir + "/verdict.json", kMaxSmall));
  files["record.json"] = json_text(to_json(u), 2) + "\n";
  json m = {{"format", kArtifactFormat},    {"unit", u.id},           {"repo", u.repo},
            {"forge_repo", u.forge_repo},   {"issue", u.issue},       {"base_ref", u.base_ref},
            {"base_commit", u.base_commit}, {"files", json::object()}};
  for (const auto& [name, data] : files) {
    AW_CHECK(write_file(dir + "/" + name, data, 0644));
    m["files"][name] = sha256_hex(data);
  }
  return write_file(dir + "/manifest.json", json_text(m, 2) + "\n", 0644);
}

Result<Artifact> load_artifact(const std::string& dir) {
  Artifact a;
  a.dir = dir;
  AW_TRY(std::string text, artifact_file(dir, "manifest.json"));
  a.sha256 = sha256_hex(text);
  const std::string at = "artifact " + dir;
  AW_TRY(ArtifactManifest m, with_context(parse_manifest(text), at));
  AW_CHECK(only_known_files(dir));
  std::map<std::string, std::string> got;
  for (const auto& name : kArtifactFiles) {
    AW_TRY(got[name], artifact_file(dir, name));
    const std::string& want = m.files[name];
    std::string have = sha256_hex(got[name]);
    if (want != have)
      return fail(
          "artifact {}: {} was changed after the agent job made it (sha256 {}, the manifest "
          "says {}); refusing the artifact",
          dir, name, have.substr(0, 16), want.empty() ? "nothing" : want.substr(0, 16));
  }
  a.patch = std::move(got["patch.diff"]);
  a.requests = std::move(got["requests.jsonl"]);
  AW_TRY(a.verdict, with_context(parse_artifact_verdict(got["verdict.json"]), at));
  AW_TRY(a.record, with_context(parse_artifact_record(got["record.json"]), at));
  AW_CHECK(with_context(manifest_agrees(m, a.record), at));
  return a;
}

Verdict recheck_artifact(const Artifact& a, const Bounds& bounds, const RequestContext& ctx) {
  Verdict v = check_outputs(a.patch, std::string_view(a.requests), bounds, ctx);
  bool said = a.verdict.accepted;
  if (v.accepted && (!said || a.verdict.paths != v.paths)) {
    v.refusals.push_back({"artifact.verdict", "", 0,
                          said ? "the agent job's verdict lists other paths than the patch has"
                               : "the agent job's verdict refused these outputs",
                          "verdict"});
    v.accepted = false;
    v.paths.clear();
    v.requests.clear();
  }
  return v;
}

Result<Verdict> recheck_artifact(const Config& cfg, const Artifact& a,
                                 const std::vector<std::string>& secrets) {
  const UnitRecord& u = a.record;
  auto it = cfg.repos.find(u.repo);
  if (it == cfg.repos.end())
    return fail("artifact {}: repository '{}' is not under repos: in {}", a.dir, u.repo,
                cfg.file.empty() ? "the config" : cfg.file);
  const RepoConfig& repo = it->second;
  if (repo.forge.path() != u.forge_repo)
    return fail("artifact {}: its unit is on '{}', but repos.{} is {}: '{}'", a.dir, u.forge_repo,
                u.repo, repo.forge.gitlab.empty() ? "github" : "gitlab", repo.forge.path());
  RequestContext ctx;
  ctx.repo = u.forge_repo.empty() ? u.repo : u.forge_repo;
  if (u.issue > 0) ctx.issue = u.issue;
  ctx.base = u.base_ref;
  ctx.secrets = secrets;
  ctx.omitted = u.omitted;
  return recheck_artifact(a, repo.bounds, ctx);
}

Result<ArtifactApplied> apply_artifact(const Config& cfg, const std::string& dir,
                                       const OpenPublisher& publishers, Verdict* verdict,
                                       bool* refused) {
  bool ignored = false;
  if (!refused) refused = &ignored;
  *refused = true;
  AW_TRY(Artifact a, load_artifact(dir));
  *refused = false;
  ArtifactApplied out;
  UnitRecord& u = out.unit;
  u = a.record;
  RunRequest req;
  req.repo = u.repo;
  req.agent = u.agent;
  req.base = u.base_ref;
  req.base_commit = u.base_commit;
  req.origin.issue = u.issue;
  AW_TRY(Resolved resolved, with_context(resolve_target(cfg, req, publishers), "artifact " + dir));
  Target& t = resolved.target;
  Publisher* pub = resolved.publisher.get();
  t.mirror_lock.reset();  // publishing borrows the mirror's objects; it does not change it
  std::vector<std::string> secrets;
  if (pub) secrets = pub->secrets();
  AW_TRY(Verdict v, recheck_artifact(cfg, a, secrets));
  // The owner's check plugins, as after the output check in a unit: the apply job's own config
  // and approvals decide, so that its house rules refuse here what they would refuse locally.
  check_with_plugins(cfg, t.request_repo, t.base_ref, a.patch, u, secrets, v);
  if (verdict) *verdict = v;
  *refused = !v.accepted;
  if (size_t n = plugin_refusals(v); n > 0)
    return fail(
        "artifact {}: the output check accepted it and a check plugin refused it ({} "
        "reason{}); nothing published",
        dir, n, n == 1 ? "" : "s");
  if (!v.accepted)
    return fail("artifact {}: the output check refused it again ({} reason{}); nothing published",
                dir, v.refusals.size(), v.refusals.size() == 1 ? "" : "s");
  std::string state = state_dir_of(cfg);
  AW_TRY(Store store, Store::open(state));
  UsageOnExit usage{store, pub};
  // A unit applied here before (a retried apply job) keeps its run folder.
  if (auto old = store.get(u.id); old && dir_id(old->run_dir)) {
    u.run_dir = old->run_dir;
  } else {
    AW_TRY(RunDir rd, make_run_dir(state, u.id));
    u.run_dir = rd.root;
  }
  (void)write_file(u.run_dir + "/patch.diff", a.patch, 0600);
  (void)write_file(u.run_dir + "/verdict.json", json_text(to_json(v), 2) + "\n", 0600);
  u.verdict = "accepted";
  u.notes.push_back(fmt::format("applied from artifact {} (manifest sha256 {})", dir, a.sha256));
  if (a.patch.empty()) {
    out.nothing = true;
    AW_CHECK(store.save(u));
    return out;
  }
  auto applied = apply_verdict(t, pub, u, a.patch, v, u.run_dir + "/apply");
  if (pub) {
    auto ended = applied ? pub->end_note(u, applied->pull_url, "done", "")
                         : pub->end_note(u, "", "failed", "apply: " + applied.error().message);
    if (!ended) u.notes.push_back("progress comment (apply): " + ended.error().message);
  }
  if (!applied) {
    (void)store.save(u);
    return tl::unexpected(applied.error());
  }
  note_applied(*applied, u);
  out.applied = *applied;
  AW_CHECK(with_context(store.save(u), "saving the record"));
  return out;
}

}  // namespace aw
