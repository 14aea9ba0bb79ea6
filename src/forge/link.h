// Following GitHub's pages: the Link header's next URL, and that URL as a target under the API.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"

namespace aw {

// Link pagination: the rel="next" URL of a Link header, if any.
std::optional<std::string> link_next(const std::string& link_header);
// A URL GitHub handed back (a next page), as a target under api_url; an Error when it points
// anywhere else (the token is never sent to another host).
Result<std::string> target_under(const std::string& url, const std::string& api_url);

}  // namespace aw
