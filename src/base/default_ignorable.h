// Unicode's Default_Ignorable_Code_Point: what renders as nothing. One table for every room that
// must see it: check/invisible.h (removed from the task and from what awaywork posts),
// check/patch_rules.cc (refused in paths) and base/inert.h (made visible on a terminal or a log).
#pragma once

#include <cstdint>

namespace aw {

// Unicode's Default_Ignorable_Code_Point (Unicode 15.0, DerivedCoreProperties.txt): soft hyphen,
// combining grapheme joiner, Arabic letter mark, Hangul and Khmer fillers, Mongolian free
// variation selectors and vowel separator, zero-width characters and joiners, bidi controls,
// invisible operators, variation selectors (U+FE00-FE0F, U+E0100-E01EF), BOM, tag characters
// and the reserved code points of those blocks (U+E0000-E0FFF).
bool default_ignorable(int32_t c);

}  // namespace aw
