// The agent's requests: JSON lines parsed strictly into a closed set of types, every text field
// sanitized (see sanitize.h). Anything not understood is refused with its line and reason.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/sanitize.h"

namespace aw {

struct Bounds;
struct Refusal;

// What the unit is about; a request naming another target is refused (rule request.retarget).
struct RequestContext {
  std::string repo;                // "owner/name"; a request's `repo` must equal it if present
  std::string base;                // base branch; a request's `base` must equal it if present
  std::optional<long long> issue;  // the unit's issue number, if the unit came from one
  // Link hosts kept in text: exact names or "*.domain" for any subdomain. Others are redacted.
  std::vector<std::string> allowed_domains = SanitizeOptions{}.allowed_domains;
  std::vector<std::string> secrets;  // literal secret values of the unit (redacted, patch refused)
  std::vector<std::string> omitted;  // untracked binaries collect left out, echoed in the verdict
};

struct Request {
  std::string type;  // create_pull_request, add_comment, add_labels, create_issue, noop,
                     // missing_tool, missing_data
  int line = 0;
  std::string title, body, message, tool, reason, what;  // sanitized; only the type's own fields
  std::vector<std::string> labels;
};

nlohmann::json to_json(const Request& r);

// Parse and check requests.jsonl text against the bounds. Appends refusals; returns the
// requests that passed (the caller keeps none of them when anything was refused).
std::vector<Request> parse_requests(std::string_view jsonl, const Bounds& bounds,
                                    const RequestContext& ctx, std::vector<Refusal>& refusals);

}  // namespace aw
