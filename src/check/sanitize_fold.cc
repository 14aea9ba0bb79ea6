// Folding for comparison. Never shown: the sanitizer wraps or refuses the original text.
#include "check/sanitize_fold.h"

#include <utf8proc.h>

#include <string>

namespace aw::sanitize_detail {
namespace {

// Lower-case letters of other scripts that render like a Latin one (after case folding).
char confusable(int32_t c) {
  switch (c) {
    case 0x0430:
      return 'a';  // Cyrillic а
    case 0x0435:
      return 'e';
    case 0x043E:
      return 'o';
    case 0x0440:
      return 'p';
    case 0x0441:
      return 'c';
    case 0x0443:
      return 'y';
    case 0x0445:
      return 'x';
    case 0x0456:
      return 'i';
    case 0x0458:
      return 'j';
    case 0x0455:
      return 's';
    case 0x0501:
      return 'd';
    case 0x04BB:
      return 'h';
    case 0x04CF:
      return 'l';
    case 0x051B:
      return 'q';
    case 0x051D:
      return 'w';
    case 0x0131:
      return 'i';  // dotless i
    case 0x03B1:
      return 'a';  // Greek α
    case 0x03B5:
      return 'e';
    case 0x03B9:
      return 'i';
    case 0x03BA:
      return 'k';
    case 0x03BD:
      return 'v';
    case 0x03BF:
      return 'o';
    case 0x03C1:
      return 'p';
    case 0x03C4:
      return 't';
    case 0x03C5:
      return 'u';
    case 0x03C7:
      return 'x';
    default:
      return 0;
  }
}

}  // namespace

std::vector<FoldUnit> fold_units(std::string_view s) {
  std::vector<FoldUnit> out;
  out.reserve(s.size());
  constexpr auto kOpts = utf8proc_option_t(UTF8PROC_COMPAT | UTF8PROC_CASEFOLD |
                                           UTF8PROC_DECOMPOSE | UTF8PROC_STRIPMARK);
  for (size_t i = 0; i < s.size();) {
    utf8proc_int32_t cp;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                              utf8proc_ssize_t(s.size() - i), &cp);
    if (n <= 0) n = 1, cp = 0xFFFD;
    auto b = uint32_t(i), e = uint32_t(i + size_t(n));
    i += size_t(n);
    if (cp < 0x80) {
      char c = char(cp);
      out.push_back({(c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c, b, e});
      continue;
    }
    utf8proc_int32_t buf[18];
    int last = 0;
    auto m = utf8proc_decompose_char(cp, buf, 18, kOpts, &last);
    if (m <= 0 || m > 18) {
      out.push_back({'\x7f', b, e});
      continue;
    }
    bool any = false;
    for (int j = 0; j < m; ++j) {
      int32_t d = buf[j];
      char c = d < 0x80 ? char(d) : confusable(d);
      if (d == 0x00A0 || (d >= 0x2000 && d <= 0x200A) || d == 0x3000 || d == 0x202F) c = ' ';
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
      if (c == 0) c = '\x7f';
      out.push_back({c, b, e});
      any = true;
    }
    if (!any) out.push_back({'\x7f', b, e});
  }
  return out;
}

size_t marker_opening(const std::vector<FoldUnit>& units) {
  // Whitespace and invisible characters are ignored, case folded: `<!--AwayWork :unit=` counts.
  std::vector<size_t> at;  // indexes of the units that are not whitespace
  std::string f;
  for (size_t i = 0; i < units.size(); ++i)
    if (units[i].c != ' ' && units[i].c != '\t' && units[i].c != '\n') {
      f += units[i].c;
      at.push_back(i);
    }
  for (size_t p = f.find("<!--"); p != std::string::npos; p = f.find("<!--", p + 1)) {
    size_t q = p + 4;
    while (q < f.size() && f[q] == '-') ++q;
    if (f.compare(q, 8, "awaywork") == 0) return at[p];
  }
  return units.size();
}

}  // namespace aw::sanitize_detail
