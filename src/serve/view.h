// The JSON shapes of units as the API returns them: a listing row, and the whole unit with what
// its run folder adds (the verdict file, the checked requests). Names only for secrets, never a
// value: the record already holds the redacted prompt and the secrets' names.
#pragma once

#include <nlohmann/json.hpp>

#include "record/record.h"

namespace aw {

// id, created_at, ended_at, state, reason, repo, agent, profile, isolation, verdict,
// duration_ms (null while running), patch_files, branch, prompt (first line, capped),
// issue (null until units come from a forge issue).
nlohmann::json unit_row(const UnitRecord& u);

// The record (to_json) plus: duration_ms, verdict_detail (verdict.json), checked_requests
// (requests.json), published ({branch, commit, pull_request: {number, kind, url} or null} or
// null), log_bytes, issue. kind is "merge_request" for GitLab's address (.../-/merge_requests/N),
// else "pull_request".
nlohmann::json unit_detail(const UnitRecord& u);

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
