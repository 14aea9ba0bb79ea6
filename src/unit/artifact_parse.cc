#include "unit/artifact_parse.h"

#include <tuple>

#include <nlohmann/json.hpp>

#include "base/json_read.h"
#include "base/json_write.h"

namespace aw {

namespace {

using nlohmann::json;

// A value shown in an error: JSON-quoted, so control characters are escaped, and never a throw
// (the strict handler throws on bytes that are not UTF-8).
std::string shown(const json& v) {
  return json_text(v);
}

}  // namespace

Result<ArtifactManifest> parse_manifest(std::string_view text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail("manifest.json is not JSON");
  JsonRead r(j, "manifest.json");
  AW_CHECK(r.is_object());
  AW_TRY(std::string format, r.str("format"));
  if (format != kArtifactFormat)
    return fail("manifest.json is not an {} manifest (its format differs)", kArtifactFormat);
  ArtifactManifest m;
  AW_TRY(JsonRead files, r.object("files"));
  // A file it names no sum for reads as "": load_artifact refuses it as changed, by name.
  for (const auto& name : kArtifactFiles) {
    AW_TRY(m.files[name], files.str_or(name, ""));
  }
  AW_TRY(m.unit, r.str("unit"));
  AW_TRY(m.repo, r.str("repo"));
  AW_TRY(m.forge_repo, r.str("forge_repo"));
  AW_TRY(m.issue, r.int_in<int64_t>("issue", 0));
  AW_TRY(m.base_ref, r.str("base_ref"));
  AW_TRY(m.base_commit, r.str("base_commit"));
  return m;
}

Result<UnitRecord> parse_artifact_record(std::string_view text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail("record.json is not JSON");
  return unit_from_json(j, "record.json");
}

Result<ArtifactVerdict> parse_artifact_verdict(std::string_view text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail("verdict.json is not JSON");
  JsonRead r(j, "verdict.json");
  AW_CHECK(r.is_object());
  ArtifactVerdict v;
  AW_TRY(v.accepted, r.bool_or("accepted", false));
  AW_TRY(v.paths, r.strings_or("paths"));
  return v;
}

Status manifest_agrees(const ArtifactManifest& m, const UnitRecord& u) {
  const std::vector<std::tuple<const char*, json, json>> fields = {
      {"unit", m.unit, u.id},
      {"repo", m.repo, u.repo},
      {"forge_repo", m.forge_repo, u.forge_repo},
      {"issue", m.issue, u.issue},
      {"base_ref", m.base_ref, u.base_ref},
      {"base_commit", m.base_commit, u.base_commit}};
  for (const auto& [key, said, holds] : fields)
    if (said != holds)
      return fail("manifest.json's {} differs from record.json's ({} vs {})", key, shown(said),
                  shown(holds));
  return {};
}

}  // namespace aw
