// Internal to the sanitizer: a folded view of text for matching mentions, keywords, markers and
// labels, mapped back to the original bytes so that what is shown stays as written (NFC).
//   for (const FoldUnit& u : fold_units(text)) ... u.c is ASCII; text[u.b, u.e) is its origin.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace aw::sanitize_detail {

struct FoldUnit {
  char c;         // folded ASCII, or '\x7f' for a character with no ASCII look-alike
  uint32_t b, e;  // the code point it came from (several units may share one)
};

// Per code point: NFKC, case folding, marks stripped, Cyrillic/Greek look-alikes mapped to
// their Latin letter, Unicode spaces to ' '. "ｆｉｘｅｓ", "ﬁxes" and "fіxes" all give "fixes".
std::vector<FoldUnit> fold_units(std::string_view s);

// The marker-form detector (has_marker_form, defuse_marker_forms): the index in units of the `<`
// that opens the first `<!--` (more dashes allowed) followed by "awaywork", whitespace between
// any two ignored; units.size() when there is none.
size_t marker_opening(const std::vector<FoldUnit>& units);

}  // namespace aw::sanitize_detail
