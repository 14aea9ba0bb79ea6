#include "watch/triggers_ci.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace aw {

using nlohmann::json;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

CiVerdict judge_ci(CiState& st, const std::string& head, const std::vector<std::string>& failing,
                   int max_attempts) {
  CiVerdict v;
  if (head.empty()) return v;
  if (head != st.head) {
    st.prev_failing = st.head == "" ? std::vector<std::string>{} : st.head_failing;
    st.head = head;
    st.head_failing.clear();
  }
  std::vector<std::string> fresh;
  for (const std::string& n : failing)
    if (!has(st.head_failing, n) && !has(fresh, n)) fresh.push_back(n);
  // A streak lives while its check fails head after head: one that did not fail on the head
  // before (and is not failing on this one) is over.
  for (auto it = st.streak.begin(); it != st.streak.end();)
    it = has(st.prev_failing, it->first) || has(st.head_failing, it->first) ? std::next(it)
                                                                            : st.streak.erase(it);
  for (const std::string& n : fresh) {
    st.streak[n] = (has(st.prev_failing, n) ? st.streak[n] : 0) + 1;
    st.head_failing.push_back(n);
  }
  if (fresh.empty()) return v;
  // The first failing head is fixed by attempt 1; the head after attempt N fails for the
  // (N+1)th time: a streak of N+1 heads is N fixes in a row (forge/ci_attempts.h's rule).
  for (const std::string& n : fresh)
    if (ci_attempts_spent(st.streak[n] - 1, max_attempts)) {
      v.stop = true;
      v.check = n;
      v.streak = st.streak[n];
      v.reason = fmt::format("check {} failed on {} heads in a row (follow_up.max_ci_attempts {})",
                             ci_name_for_post(n), v.streak, max_attempts);
      return v;
    }
  v.trigger = true;
  v.check = fresh.front();
  v.streak = st.streak[v.check];
  v.reason = fmt::format("check {} failed on the head {} ({} in a row)", ci_name_for_post(v.check),
                         head.substr(0, 12), v.streak);
  return v;
}

json to_json(const CiState& s) {
  return json{{"head", s.head},
              {"head_failing", s.head_failing},
              {"prev_failing", s.prev_failing},
              {"streak", s.streak},
              {"said", s.said},
              {"closed", s.closed}};
}

Result<CiState> ci_state_from_json(const json& j, const std::string& what) {
  try {
    if (!j.is_object()) return fail("{}: not an object", what);
    CiState s;
    s.head = j.value("head", "");
    s.head_failing = j.value("head_failing", std::vector<std::string>{});
    s.prev_failing = j.value("prev_failing", std::vector<std::string>{});
    s.streak = j.value("streak", std::map<std::string, int>{});
    s.said = j.value("said", false);
    s.closed = j.value("closed", false);
    return s;
  } catch (const json::exception& e) {
    return fail("{}: {}", what, e.what());
  }
}

}  // namespace aw
