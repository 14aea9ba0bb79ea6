// Following GitHub's pages: the Link header's next URL, and that URL as a target under the API;
// a name (a branch, an owner) as a path of an API URL.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace aw {

// Link pagination: the rel="next" URL of a Link header, if any.
std::optional<std::string> link_next(const std::string& link_header);
// A URL GitHub handed back (a next page), as a target under api_url; an Error when it points
// anywhere else (the token is never sent to another host).
Result<std::string> target_under(const std::string& url, const std::string& api_url);
// A branch name (or an owner, an OWNER/REPO) as the path of an API URL (.../branches/NAME,
// git/ref/heads/NAME, compare/...): its slashes kept (GitHub takes release/1.x as is), every byte
// but an unreserved one percent-encoded, so that a name holding `?` or `#` (git allows both)
// stays one branch's name.
std::string path_escape(std::string_view name);

}  // namespace aw
