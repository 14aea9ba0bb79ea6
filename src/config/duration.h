// Short durations as config keys hold them (issue 40: one parser for limits.engine_silence and
// plugins.NAME.timeout, which each had their own rules): a whole number, then ms, s or m, as
// "1500ms", "10s", "2m". Nothing else is a duration here: no sign, no space, no fraction, no
// other unit, no more than 9 digits (so that no value can overflow on its way to milliseconds),
// and each key its own range. Each error says what is wrong and how to write it.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "config/parse.h"

namespace aw {

struct DurationRange {
  int64_t min_ms, max_ms;
  std::string_view min_text, max_text;  // as the error shows them: "1s", "10m"
};

// The milliseconds of text, within range. The Error:
//   '2h' is not a duration from 1s to 10m (a whole number then ms, s or m)
Result<int64_t> parse_duration_ms(std::string_view text, const DurationRange& range);

// One config key: a string that parse_duration_ms accepts, else an issue at the key's
// file:line:col with the fix ("write a duration from 1s to 10m, e.g. timeout: 10s"). example is
// the key and a good value, "timeout: 10s". out_ms is left as it was on any error.
void parse_duration_key(const Value& v, const ParseCtx& ctx, const DurationRange& range,
                        std::string_view example, int64_t& out_ms);

}  // namespace aw
