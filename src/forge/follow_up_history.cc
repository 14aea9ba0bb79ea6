#include "forge/follow_up_history.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <tuple>

#include "base/utc.h"
#include "config/paths.h"
#include "forge/ci_attempts.h"
#include "forge/pr_source.h"
#include "record/store.h"

namespace aw {

namespace {

// The units this machine recorded on the pull request's branch (none without its address). An
// Error when the state database cannot be read: an empty answer would drop the opening unit's
// task and have the next follow-up quote again what an earlier one already read.
Result<std::vector<UnitRecord>> units_of_pull(const Config& cfg, const ForgePull& pull) {
  if (pull.html_url.empty()) return std::vector<UnitRecord>{};
  AW_TRY(Store store, Store::open(state_dir_of(cfg)));
  AW_TRY(std::vector<UnitRecord> units, store.list(1000));
  std::erase_if(units, [&](const UnitRecord& u) {
    return u.pull_request != pull.html_url || u.branch != pull.head_ref || u.id.empty();
  });
  return units;
}

// The done follow-ups among them (not the opening unit, which the branch is named for), oldest
// first: those that made a commit on the branch.
std::vector<UnitRecord> done_follow_ups(std::vector<UnitRecord> units, const ForgePull& pull) {
  std::erase_if(units, [&](const UnitRecord& u) {
    return pull.head_ref.ends_with(u.id) || u.state != UnitState::done || u.commit.empty() ||
           !is_follow_up(u.notes);
  });
  std::sort(units.begin(), units.end(), [](const UnitRecord& a, const UnitRecord& b) {
    return std::tie(a.created_at, a.id) < std::tie(b.created_at, b.id);
  });
  return units;
}

}  // namespace

// The recorded task of the unit that opened the pull request, when this machine ran it: its
// record names the pull request's address and the branch named for it (a follow-up's record
// names the same address and branch, but the branch is not named for the follow-up). "" when
// none does.
Result<std::string> opening_task(const Config& cfg, const ForgePull& pull) {
  AW_TRY(auto units, units_of_pull(cfg, pull));
  for (const UnitRecord& u : units)
    if (pull.head_ref.ends_with(u.id)) return u.prompt;
  return std::string();
}

// Where the next follow-up's task starts (PullTask::since): a second before the newest done
// follow-up of this pull request on this machine was created. What was written after its start
// (what watch batched while it ran) asks for work again; what it already read does not, so a
// second follow-up does not redo the first. The second before: a comment of that same second
// is quoted again rather than lost (GitHub's times are whole seconds). "" when none was done.
Result<std::string> follow_up_since(const Config& cfg, const ForgePull& pull) {
  AW_TRY(auto units, units_of_pull(cfg, pull));
  std::string newest;
  for (const UnitRecord& u : done_follow_ups(std::move(units), pull))
    newest = std::max(newest, u.created_at);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0, n = 0;
  if (std::sscanf(newest.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6)
    return std::string();
  auto t = utc_seconds(y, mo, d, h, mi, se);
  if (!t) return std::string();
  time_t before = static_cast<time_t>(*t - 1);
  std::tm tm{};
  ::gmtime_r(&before, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf);
}

Result<std::vector<std::vector<std::string>>> ci_fixes_tried(
    const Config& cfg, const ForgePull& pull, const std::vector<std::string>& failing_now) {
  AW_TRY(auto units, units_of_pull(cfg, pull));
  std::vector<std::vector<std::string>> tried;
  for (const UnitRecord& u : done_follow_ups(std::move(units), pull)) {
    std::vector<std::string>& quoted = tried.emplace_back();
    for (const std::string& note : u.notes) {
      if (!note.starts_with(kFollowUpChecksNote)) continue;
      std::string_view list = std::string_view(note).substr(sizeof kFollowUpChecksNote - 1);
      for (const std::string& check : failing_now)
        if (named_in_check_list(list, check)) quoted.push_back(check);
    }
  }
  return tried;
}

}  // namespace aw
