// The output check: the one entry point the unit pipeline and `awaywork check` call.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "check/bounds.h"
#include "check/requests.h"
#include "check/verdict.h"

namespace aw {

// Parse the patch strictly, apply the bounds and path rules, scan it for secrets, parse and
// sanitize the requests. Never throws; every problem is a Refusal in the verdict.
Verdict check_outputs(std::string_view patch, std::optional<std::string_view> requests_jsonl,
                      const Bounds& bounds, const RequestContext& ctx);

// Read requests.jsonl: at most 1 MiB, never through a link (O_NOFOLLOW), regular files only.
inline constexpr size_t kMaxRequestsBytes = 1u << 20;
Result<std::string> read_requests_file(const std::string& path);

// `awaywork check --bounds F --patch F [--requests F]`: an Error only for unreadable or invalid
// input (bad bounds, missing file, oversize requests file); refusals are in the Verdict.
Result<Verdict> check_files(const std::string& bounds_path, const std::string& patch_path,
                            const std::optional<std::string>& requests_path,
                            const RequestContext& ctx = {});

}  // namespace aw
