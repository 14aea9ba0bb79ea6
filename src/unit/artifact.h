// A unit's artifact: what the agent job of the reusable workflow hands to the check and apply
// jobs (docs/scale-out.md), a folder holding only data:
//
//   patch.diff      the patch awaywork made from the clone (as checked)
//   requests.jsonl  the checked requests, one JSON object a line (checked again on arrival)
//   verdict.json    the agent job's verdict
//   record.json     the unit's (redacted) record: id, repo, issue, base, agent, phases
//   manifest.json   {"format", "unit", "repo", "forge_repo", "issue", "base_ref", "base_commit",
//                    "files": {NAME: sha256 hex}} over the four files above
//
//   AW_CHECK(export_artifact(unit, "/tmp/art"));         // agent job: `run --artifact DIR`
//   AW_TRY(Artifact a, load_artifact("/tmp/art"));       // any job: refuses a changed file
//   Verdict v = recheck_artifact(a, bounds, ctx);         // check job: `check --from DIR`
//   AW_TRY(ArtifactApplied r, apply_artifact(cfg, dir));  // apply job: `apply --from DIR`
//                                                        // (re-check, then check plugins)
//
// Nothing in the folder is trusted: every file is read without following links and size-capped,
// its sha256 is compared with the manifest, and the check runs again from the owner's config
// before anything is published. The manifest's sums catch a file edited after the agent job;
// the re-check, with the bounds of the job's own config, is what makes publishing safe.
#pragma once

#include <string>

#include "base/result.h"
#include "check/check.h"
#include "config/config.h"
#include "record/record.h"
#include "unit/apply.h"
#include "unit/artifact_parse.h"

namespace aw {

struct Artifact {
  std::string dir;
  std::string patch, requests;  // patch.diff and requests.jsonl as read
  ArtifactVerdict verdict;      // the agent job's verdict.json
  UnitRecord record;            // record.json
  std::string sha256;           // of manifest.json: what `check --from` saw, for the apply job
};

// Writes the artifact of a recorded unit that reached the output check into dir (created 0700;
// it must not exist or be empty).
Status export_artifact(const UnitRecord& u, const std::string& dir);

// Reads and verifies an artifact folder: exactly the five files, regular, each matching its
// sha256 in the manifest, the manifest agreeing with the record. The Error names the file (and
// the field, for a wrongly typed one: unit/artifact_parse.h); nothing in it throws.
Result<Artifact> load_artifact(const std::string& dir);

// The output check again, on the artifact alone: the repository's bounds (cfg.repos[record.repo]),
// its forge repository, issue and base as the context. The agent job's verdict must agree (same
// paths, accepted) or that is a refusal too.
Result<Verdict> recheck_artifact(const Config& cfg, const Artifact& a,
                                 const std::vector<std::string>& secrets = {});
Verdict recheck_artifact(const Artifact& a, const Bounds& bounds, const RequestContext& ctx);

// `apply --from DIR`: load, resolve the repository and its publisher from cfg (publishers: the
// caller's, publisher.h), re-check (with the publisher's credential among the secrets a patch must
// not hold), ask the owner's check plugins as a unit does after its check (check_plugins.h: the
// config's plugins, approved in its state folder; any refusal refuses), then publish exactly as
// `apply ID` does.
// *verdict gets the re-check's verdict; *refused says the Error is a refusal (a changed file or
// the re-check), not a failure to publish. The unit's
// record is saved in cfg's state folder, so `show ID` works in the apply job.
struct ArtifactApplied {
  UnitRecord unit;
  Applied applied;
  bool nothing = false;  // the patch was empty: nothing to publish
};
Result<ArtifactApplied> apply_artifact(const Config& cfg, const std::string& dir,
                                       const OpenPublisher& publishers = {},
                                       Verdict* verdict = nullptr, bool* refused = nullptr);

}  // namespace aw
