#include "config/size.h"

#include <cctype>

namespace aw {

static constexpr std::string_view kSizeHint =
    "write a number with an optional unit K, M, G or T, e.g. 4G or 512M";

static int unit_shift(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'K':
      return 10;
    case 'M':
      return 20;
    case 'G':
      return 30;
    case 'T':
      return 40;
    default:
      return -1;
  }
}

Result<uint64_t> parse_size(std::string_view text) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (n > (UINT64_MAX - d) / 10) return fail("'{}' is too large; {}", text, kSizeHint);
    n = n * 10 + d;
    ++i;
  }
  if (i == 0) return fail("'{}' is not a size; {}", text, kSizeHint);
  std::string_view rest = text.substr(i);
  int shift = 0;
  if (!rest.empty() && unit_shift(rest[0]) >= 0) {
    shift = unit_shift(rest[0]);
    rest.remove_prefix(1);
    if (rest == "i" || rest == "iB" || rest == "ib") rest = "";
  }
  if (rest == "B" || rest == "b") rest = "";
  if (!rest.empty()) return fail("'{}' is not a size; {}", text, kSizeHint);
  if (shift && n > (UINT64_MAX >> shift)) return fail("'{}' is too large; {}", text, kSizeHint);
  return n << shift;
}

}  // namespace aw
