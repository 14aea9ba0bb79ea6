#include "base/utc.h"

#include <ctime>

namespace aw {

std::optional<int64_t> utc_seconds(int y, int mo, int d, int h, int mi, int sec) {
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
      sec < 0 || sec > 59)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  time_t t = ::timegm(&tm);
  if (tm.tm_mday != d) return std::nullopt;  // 2026-02-30 rolled over
  return static_cast<int64_t>(t);
}

}  // namespace aw
