#include "watch/iso_time.h"

#include "base/utc.h"

#include <cstdio>
#include <ctime>

namespace aw {

std::string iso_utc(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<int64_t> parse_iso_utc(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, n = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
      n != 19)
    return std::nullopt;
  size_t i = 19;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9';) ++i;
  if (i + 1 != s.size() || s[i] != 'Z') return std::nullopt;
  return utc_seconds(y, mo, d, h, mi, sec);
}

}  // namespace aw
