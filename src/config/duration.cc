#include "config/duration.h"

#include <fmt/format.h>

namespace aw {

Result<int64_t> parse_duration_ms(std::string_view text, const DurationRange& range) {
  auto bad = [&] {
    return fail("'{}' is not a duration from {} to {} (a whole number then ms, s or m)", text,
                range.min_text, range.max_text);
  };
  // Digits only (std::strtoll would take a sign and leading spaces), and few enough that the
  // product below stays far from INT64_MAX: 999999999 m is about 6e13 ms.
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9) return bad();
  std::string_view unit = text.substr(digits);
  int64_t scale = unit == "ms" ? 1 : unit == "s" ? 1000 : unit == "m" ? 60000 : 0;
  if (scale == 0) return bad();
  int64_t n = 0;
  for (size_t i = 0; i < digits; ++i) n = n * 10 + (text[i] - '0');
  int64_t ms = n * scale;
  if (ms < range.min_ms || ms > range.max_ms) return bad();
  return ms;
}

void parse_duration_key(const Value& v, const ParseCtx& ctx, const DurationRange& range,
                        std::string_view example, int64_t& out_ms) {
  std::string hint = fmt::format("write a duration from {} to {}, e.g. {}", range.min_text,
                                 range.max_text, example);
  auto s = get_string(v, hint, ctx.issues);
  if (!s) return;
  auto ms = parse_duration_ms(*s, range);
  if (!ms) {
    ctx.issues.add(v.mark, v.path, fmt::format("{}; {}", ms.error().message, hint));
    return;
  }
  out_ms = *ms;
}

}  // namespace aw
