#include "forge/follow_up_history.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "base/utc.h"
#include "config/paths.h"
#include "record/store.h"

namespace aw {

std::string opening_task(const Config& cfg, const ForgePull& pull) {
  auto store = Store::open(state_dir_of(cfg));
  if (!store || pull.html_url.empty()) return "";
  auto units = store->list(1000);
  if (!units) return "";
  for (const UnitRecord& u : *units)
    if (u.pull_request == pull.html_url && u.branch == pull.head_ref && !u.id.empty() &&
        pull.head_ref.ends_with(u.id))
      return u.prompt;
  return "";
}

std::string follow_up_since(const Config& cfg, const ForgePull& pull) {
  auto store = Store::open(state_dir_of(cfg));
  if (!store || pull.html_url.empty()) return "";
  auto units = store->list(1000);
  if (!units) return "";
  std::string newest;
  for (const UnitRecord& u : *units)
    if (u.pull_request == pull.html_url && u.branch == pull.head_ref && !u.id.empty() &&
        !pull.head_ref.ends_with(u.id) && u.state == UnitState::done && !u.commit.empty() &&
        is_follow_up(u.notes))
      newest = std::max(newest, u.created_at);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0, n = 0;
  if (std::sscanf(newest.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6)
    return "";
  auto t = utc_seconds(y, mo, d, h, mi, se);
  if (!t) return "";
  time_t before = static_cast<time_t>(*t - 1);
  std::tm tm{};
  ::gmtime_r(&before, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace aw
