// GitHub's timestamps (2026-12-01T12:00:00Z) to and from Unix seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace aw {

std::string iso_utc(int64_t unix_seconds);
// nullopt when s is not YYYY-MM-DDTHH:MM:SSZ (fractions of a second are allowed and dropped).
std::optional<int64_t> parse_iso_utc(const std::string& s);

}  // namespace aw
