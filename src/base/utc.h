// A calendar date and time in UTC as Unix seconds, refusing what is not a real moment (month 13,
// February 30, hour 24): for the config's dates and the forge's timestamps.
#pragma once

#include <cstdint>
#include <optional>

namespace aw {

std::optional<int64_t> utc_seconds(int year, int month, int day, int hour, int minute, int second);

}  // namespace aw
