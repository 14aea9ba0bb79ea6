// The ranges are Unicode's own (DerivedCoreProperties.txt, Default_Ignorable_Code_Point, 15.0),
// reserved code points included: a code point assigned later in those blocks is as invisible.
#include "base/default_ignorable.h"

namespace aw {

bool default_ignorable(int32_t c) {
  struct Range {
    int32_t first, last;
  };
  static constexpr Range kRanges[] = {
      {0x00AD, 0x00AD},    // soft hyphen
      {0x034F, 0x034F},    // combining grapheme joiner
      {0x061C, 0x061C},    // Arabic letter mark
      {0x115F, 0x1160},    // Hangul choseong and jungseong fillers
      {0x17B4, 0x17B5},    // Khmer inherent vowels
      {0x180B, 0x180F},    // Mongolian free variation selectors, vowel separator
      {0x200B, 0x200F},    // zero-width space, non-joiner, joiner; LRM, RLM
      {0x202A, 0x202E},    // bidi embeddings and overrides
      {0x2060, 0x206F},    // word joiner, invisible operators, bidi isolates, deprecated
      {0x3164, 0x3164},    // Hangul filler
      {0xFE00, 0xFE0F},    // variation selectors 1-16
      {0xFEFF, 0xFEFF},    // BOM, zero-width no-break space
      {0xFFA0, 0xFFA0},    // halfwidth Hangul filler
      {0xFFF0, 0xFFF8},    // reserved
      {0x1BCA0, 0x1BCA3},  // shorthand format controls
      {0x1D173, 0x1D17A},  // musical symbol format controls
      {0xE0000, 0xE0FFF},  // tag characters, variation selectors 17-256, reserved
  };
  for (const Range& r : kRanges)
    if (c >= r.first && c <= r.last) return true;
  return false;
}

}  // namespace aw
