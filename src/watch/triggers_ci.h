// What asks watch for a follow-up because of CI (issue 26, `follow_ci: true`): a check failing on
// the head of awaywork's own pull request, judged once per head and check, and the loop guard,
// `follow_up.max_ci_attempts`: when the same check has failed on that many heads after the first
// in a row (each a follow-up's fix, or anyone's push), watch stops starting units for it and says
// so once on the pull request. The rule (how many fixes in a row spend the limit) and a check's
// name as a post writes it are forge/ci_attempts.h's, shared with `run --pr`, which counts the
// record's follow-ups instead of heads. Pure: the state is kept by the caller (watcher_pulls.cc,
// in the state database under "pullci/REPO/N"); nothing here talks to the forge.
//
//   CiVerdict v = judge_ci(state, head_sha, failing_names, limits.max_ci_attempts);
//   if (v.stop && !state.said) say it;  else if (v.trigger) queue a follow-up
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/ci_attempts.h"

namespace aw {

struct CiState {
  std::string head;                       // the head commit last judged
  std::vector<std::string> head_failing;  // the checks counted as failing on it
  std::vector<std::string> prev_failing;  // those that failed on the head before it
  std::map<std::string, int> streak;      // check -> heads in a row it failed on
  bool said = false;                      // the marked comment saying it stopped is posted
  bool closed = false;                    // the pull request is closed: not looked at again
};

struct CiVerdict {
  bool trigger = false;  // a check newly fails on this head: a follow-up fixes it
  bool stop = false;     // a newly failing check has failed max_ci_attempts + 1 heads in a row
  std::string check;     // the check that stopped it (stop), or the first new one (trigger)
  int streak = 0;        // its heads in a row
  std::string reason;    // for the log ("check build failed (2 heads in a row)")
};

// Advances state by the failing checks of head (by name) and says what to do. A head judged
// before with the same failing checks asks nothing again (a poll that sees nothing new starts
// nothing); a check that passes on a head ends its streak.
CiVerdict judge_ci(CiState& state, const std::string& head, const std::vector<std::string>& failing,
                   int max_attempts);

nlohmann::json to_json(const CiState& s);
// A kept state; a broken one is an Error naming `what`.
Result<CiState> ci_state_from_json(const nlohmann::json& j, const std::string& what);

}  // namespace aw
