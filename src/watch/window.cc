#include "watch/window.h"

#include <ctime>

namespace aw {

namespace {

int seconds_of_day(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::localtime_r(&t, &tm);
  return tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
}

}  // namespace

bool window_open(const WatchWindow& w, int64_t now) {
  if (w.start < 0) return true;
  int s = seconds_of_day(now);
  // [start, end) in the day, or across midnight [start, 24h) + [0, end).
  return w.start < w.end ? (s >= w.start && s < w.end) : (s >= w.start || s < w.end);
}

int64_t window_left(const WatchWindow& w, int64_t now) {
  if (w.start < 0) return int64_t{1} << 40;
  if (!window_open(w, now)) return 0;
  int s = seconds_of_day(now);
  return s < w.end ? w.end - s : 86400 - s + w.end;
}

}  // namespace aw
