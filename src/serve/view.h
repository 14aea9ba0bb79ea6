// The JSON shapes of units as the API returns them: a listing row, and the whole unit with what
// its run folder adds (the verdict file, the checked requests). Names only for secrets, never a
// value: the record already holds the redacted prompt and the secrets' names.
#pragma once

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "record/record.h"

namespace aw {

// id, created_at, ended_at, state, reason, repo, agent, profile, isolation, verdict,
// duration_ms (null while running), patch_files, branch, prompt (first line, capped),
// issue (null until units come from a forge issue).
nlohmann::json unit_row(const UnitRecord& u);

// The record (to_json) plus: duration_ms, verdict_detail (verdict.json), checked_requests
// (requests.json), published ({branch, branch_url, commit, pull_request: {number, kind, url} or
// null} or null), log_bytes, issue. kind is "merge_request" for GitLab's address
// (.../-/merge_requests/N), else "pull_request". branch_url is branch_url() below; `cfg` is the
// config serve was started with.
nlohmann::json unit_detail(const UnitRecord& u, const Config& cfg);

// The published branch's page on its forge, "" when none is known (a local repository, no
// branch). From the config when the unit's repository is a forge one there: the forge's web root
// (its api_url without /api/v3 or /api/v4; api.github.com is github.com), the repository's path,
// then /tree/BRANCH (GitHub) or /-/tree/BRANCH (GitLab). Else from the recorded address of the
// pull request, then of the issue (http(s) only): GitHub's .../OWNER/REPO/pull/N (/issues/N) or
// GitLab's .../GROUP/.../PROJECT/-/merge_requests/N (/-/issues/N). Each segment of the branch is
// percent-escaped as encodeURIComponent does.
std::string branch_url(const UnitRecord& u, const Config& cfg);

// The pull request thread a unit belongs to, or null when it neither opened a pull request nor
// follows one up: {pull_request: {number, kind, url}, units: [{id, created_at, state, reason,
// verdict, commit, follow_up}], truncated}. The opening unit first, then its follow-ups, oldest
// first.
// `all` is the record's units (any order). A thread is keyed by the pull request's address: the
// opening unit's pull_request, a follow-up's origin address (issue_url, what `run --pr` and watch
// record), so that a follow-up that ended before publishing is in it too.
nlohmann::json unit_thread(const UnitRecord& u, const std::vector<UnitRecord>& all);

// Milliseconds since the epoch of an ISO 8601 UTC time (2026-11-29T18:03:12.345Z); -1 when bad.
int64_t iso_ms(const std::string& iso);

}  // namespace aw
