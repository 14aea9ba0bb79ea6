// Text hidden in invisible code points, and the decoder that finds it again (issue 41, item 2):
// one variation selector per byte (bytes 0-15 as U+FE00-FE0F, 16-255 as U+E0100-E01EF, the
// public "emoji smuggling" scheme) or one tag character per ASCII byte (U+E0000 + byte). Shared
// by the tests of what an agent reads (tests/forge/task_test.cc) and of what awaywork posts
// (tests/check).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aw::test {

inline std::string utf8(int32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

inline std::string hide_in_selectors(std::string_view bytes) {
  std::string out;
  for (unsigned char b : bytes) out += utf8(b < 16 ? 0xFE00 + b : 0xE0100 + (b - 16));
  return out;
}

inline std::string hide_in_tags(std::string_view ascii) {
  std::string out;
  for (unsigned char b : ascii) out += utf8(0xE0000 + (b & 0x7F));
  return out;
}

// Every byte hidden in the text, in either scheme, in order ("" when nothing is hidden).
inline std::string reveal(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (i + n > s.size()) break;
    int32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    if (cp >= 0xFE00 && cp <= 0xFE0F) out += char(cp - 0xFE00);
    if (cp >= 0xE0100 && cp <= 0xE01EF) out += char(cp - 0xE0100 + 16);
    if (cp >= 0xE0000 && cp <= 0xE007F) out += char(cp - 0xE0000);
    i += n;
  }
  return out;
}

// Unicode 15.0's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), written out here
// independently of src/check/invisible.cc.
struct CodeRange {
  int32_t first, last;
};
inline const std::vector<CodeRange> kDefaultIgnorable = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},  {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
    {0x180B, 0x180F},   {0x200B, 0x200F},  {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
    {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},  {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}};

}  // namespace aw::test
