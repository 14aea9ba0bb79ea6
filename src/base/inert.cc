#include "base/inert.h"

#include <fmt/format.h>

#include <cstdint>

#include "base/default_ignorable.h"

namespace aw {

namespace {

// The length of the valid UTF-8 sequence at s[i] and its code point, or 0 when s[i] starts none
// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
size_t decode(std::string_view s, size_t i, int32_t& cp) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char b = at(0);
  if (b < 0x80) return cp = b, 1;
  size_t n = b >= 0xC2 && b <= 0xDF   ? 2
             : b >= 0xE0 && b <= 0xEF ? 3
             : b >= 0xF0 && b <= 0xF4 ? 4
                                      : 0;
  if (n == 0 || s.size() - i < n) return 0;
  // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and > U+10FFFF (F4).
  unsigned char lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
  unsigned char hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
  if (at(1) < lo || at(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (at(k) < 0x80 || at(k) > 0xBF) return 0;
  cp = n == 2 ? b & 0x1F : n == 3 ? b & 0x0F : b & 0x07;
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (at(k) & 0x3F);
  return n;
}

// What a variation selector may follow and be kept (base/inert.h): the spans emoji live in.
bool symbol(int32_t c) {
  return c == 0x00A9 || c == 0x00AE || (c >= 0x203C && c <= 0x3299) ||
         (c >= 0x1F000 && c <= 0x1FAFF);
}

bool hidden(int32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || (c >= 0xFFF9 && c <= 0xFFFB) ||
         default_ignorable(c);
}

std::string made_inert(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  int32_t prev = -1;  // the last code point shown as itself (-1: none, or it was escaped)
  for (size_t i = 0; i < s.size();) {
    int32_t c = 0;
    size_t n = decode(s, i, c);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      prev = -1, ++i;
      continue;
    }
    bool line = c == '\n' || c == '\t';
    bool selector_kept = (c == 0xFE0E || c == 0xFE0F) && prev >= 0 && symbol(prev);
    if ((c < 0x20 && !(line && keep_lines)) || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
      prev = -1;
    } else if (hidden(c) && !selector_kept) {
      out += c <= 0xFFFF ? fmt::format("\\u{:04x}", c) : fmt::format("\\U{:08x}", c);
      prev = -1;
    } else {
      out.append(s.substr(i, n));
      prev = selector_kept ? -1 : c;  // a second selector after the first is escaped
    }
    i += n;
  }
  return out;
}

}  // namespace

std::string inert(std::string_view text) {
  return made_inert(text, true);
}

std::string inert_line(std::string_view text) {
  return made_inert(text, false);
}

}  // namespace aw
