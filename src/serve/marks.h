// GET /api/v1/units/ID/marks: what the dashboard needs to show a part of the log as sections with
// line numbers and times, from the transcript's index (unit/transcript_index.h), without reading
// the transcript but for a short stretch before the part.
//   {"indexed": true,
//    "bytes": N,                           the transcript's size: the marks below it are all here
//    "phases": [{"name": "agent", "offset": 1, "line": 1, "at": MS}, ...],   every phase's heading
//    "times": [[OFFSET, LINE, MS], ...],   the marks of [offset, end), after the last one before
//    "line": N,                            the line byte `offset` is on (newlines before it)
//    "more": false}                        true: more marks in the part than one answer holds
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "base/result.h"

namespace aw {

// "line" is null when the bytes before `offset` could not all be counted (the transcript does not
// hold them yet, or more than kCountAtMost lie after the last mark: an index-less transcript).
// No index (a unit older than it) is indexed false, no phases and no times; an index that cannot
// be read is an Error.
Result<nlohmann::json> log_marks(const std::string& run_dir, uint64_t offset, uint64_t end);

inline constexpr uint64_t kCountAtMost = 16u << 20;
inline constexpr size_t kTimesAtMost = 50000;

}  // namespace aw
