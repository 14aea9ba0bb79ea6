// awaywork's hidden markers on what it posts (invariant 13). A post is text, some of it not
// awaywork's own (the agent's words in a reason, an issue's title, a forge's error), then one
// marker on its last line. with_marker is the one way a body gets its marker: it defuses every
// marker form in the text first, so the only marker a post carries is the one awaywork wrote.
// Reading is as strict: only the marker that ends a body, alone on its line in the exact form
// awaywork writes, counts; one anywhere else (quoted, in a code span) is text. Callers read
// only comments by awaywork's own login (claims: and by admitted people, watch/claim.h).
//   std::string body = with_marker(text, item_marker(unit_id, "comment-1", sha));
//   has_marker(body, unit_id, "comment-1")  // true
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace aw {

// GitHub's limits in characters (code points): the body of an issue, a pull request or a comment,
// and a title. GitHub answers a longer one with 422 "... is too long".
inline constexpr size_t kForgeBodyMaxChars = 65536;
inline constexpr size_t kForgeTitleMaxChars = 256;

// text (every marker form in it defused, check/sanitize.h), a blank line, then marker.
std::string with_marker(std::string_view text, std::string_view marker);

// The marker a body ends with: its last line (trailing blanks and line ends aside) when that is
// a whole `<!-- awaywork:... -->`; the text between "<!-- awaywork:" and " -->".
std::optional<std::string_view> trailing_marker(std::string_view body);

// The hidden marker of one posted item; has_marker tells whether text ends with it (any sha).
std::string item_marker(const std::string& unit_id, const std::string& item,
                        const std::string& sha);
bool has_marker(const std::string& text, const std::string& unit_id, const std::string& item);

}  // namespace aw
