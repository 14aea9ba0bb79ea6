// awaywork's hidden markers on what it posts (invariant 13). A post is text, some of it not
// awaywork's own (the agent's words in a reason, an issue's title, a forge's error), then one
// marker on its last line. with_marker is the one way a body gets its marker: it defuses every
// marker form in the text first, so the only marker a post carries is the one awaywork wrote.
//   std::string body = with_marker(text, item_marker(unit_id, "comment-1", sha));
//   has_marker(body, unit_id, "comment-1")  // true
#pragma once

#include <string>
#include <string_view>

namespace aw {

// text (every marker form in it defused, check/sanitize.h), a blank line, then marker.
std::string with_marker(std::string_view text, std::string_view marker);

// The hidden marker of one posted item; has_marker tells whether text carries it (any sha).
std::string item_marker(const std::string& unit_id, const std::string& item,
                        const std::string& sha);
bool has_marker(const std::string& text, const std::string& unit_id, const std::string& item);

}  // namespace aw
