// An artifact's JSON files read from their bytes alone (no folder, no hashing): what
// load_artifact (unit/artifact.h) uses, and what fuzz/fuzz_artifact.cc feeds arbitrary bytes.
// Another job wrote these files, so nothing in them is trusted: each reader answers a value or an
// Error naming the file and the field, never an exception (DESIGN.md section 9, invariant 7):
//
//   AW_TRY(ArtifactManifest m, parse_manifest(text));          // manifest.json
//   AW_TRY(UnitRecord u, parse_artifact_record(text));         // record.json
//   AW_TRY(ArtifactVerdict v, parse_artifact_verdict(text));   // verdict.json
//   AW_CHECK(manifest_agrees(m, u));
//
// The errors carry no folder: load_artifact prefixes "artifact DIR: ".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "record/record.h"

namespace aw {

inline constexpr const char* kArtifactFormat = "awaywork-artifact/1";
// The files the manifest sums, beside manifest.json itself.
inline const std::vector<std::string> kArtifactFiles = {"patch.diff", "requests.jsonl",
                                                        "verdict.json", "record.json"};

struct ArtifactManifest {
  std::string unit, repo, forge_repo, base_ref, base_commit;
  int64_t issue = 0;
  // Each of kArtifactFiles -> its sha256 hex as the manifest says ("" when it names none).
  std::map<std::string, std::string> files;
};

// The agent job's verdict as the check and apply jobs read it.
struct ArtifactVerdict {
  bool accepted = false;
  std::vector<std::string> paths;
};

Result<ArtifactManifest> parse_manifest(std::string_view text);
Result<UnitRecord> parse_artifact_record(std::string_view text);
Result<ArtifactVerdict> parse_artifact_verdict(std::string_view text);
// The manifest names the unit the record holds (id, repository, issue, base).
Status manifest_agrees(const ArtifactManifest& m, const UnitRecord& u);

}  // namespace aw
