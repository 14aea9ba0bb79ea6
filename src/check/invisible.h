// What renders as nothing, removed from text in both directions: from the task the agent reads
// (forge/task.cc) and from everything awaywork posts (the sanitizer's character stage). Text
// spelled in variation selectors or tag characters (one per byte) is invisible on every forge
// page and terminal, yet an agent or a review bot reads it.
//   int32_t prev = -1;  // the last code point kept
//   for (int32_t c : code_points) if (!drop_invisible(prev, c)) keep(c), prev = c;
#pragma once

#include <cstdint>

#include "base/default_ignorable.h"  // default_ignorable(c): what renders as nothing

namespace aw {

// A character that VS15/VS16 (U+FE0E text, U+FE0F emoji presentation) may follow to choose how
// it renders: (C) (R), the symbols of U+203C-3299 and U+1F000-1FAFF.
bool emoji_base(int32_t c);

// Whether c is removed after prev (the last code point kept; -1 at the start): controls but tab
// and newline, DEL and C1, U+2028/2029, the interlinear annotation controls U+FFF9-FFFB, and every
// default-ignorable code point but one VS15/VS16 right after an emoji base (what rendering needs;
// a second selector, or one after anything else, goes).
bool drop_invisible(int32_t prev, int32_t c);

}  // namespace aw
