// What watch keeps of a repository's issue-list poll (state key "poll/REPO"), and how a changed
// list moves it on. The poll asks GET /repos/O/R/issues?state=open&sort=updated&direction=asc&
// per_page=100&since=S with If-None-Match; a 304 is free, so what is kept decides what a poll
// costs, and it must never hide a change:
//
// - The ETag is good for the list under its own `since` only, so it is kept with that `since`.
//   After a change the list is asked again under the same `since`, with the changed answer's
//   ETag: the next poll with nothing new is a 304 (moving `since` on would cost a counted poll
//   under a `since` that has no ETag yet).
// - An ETag stands for the first page only. A list that fills a page (100 issues, or a Link to a
//   next one) would hide a change further down, so then `since` moves on instead, to the second
//   before the earliest issue that must be seen again (the newest one seen when none must), and
//   no ETag is kept.
// - An issue of a changed list is examined again only when what the list shows of it differs
//   from when it was last examined (issue_fingerprint): its triggers (a label, an assignment, a
//   comment) change that. One whose examination failed is kept out, and then no ETag is kept
//   either, so the next poll asks again and examines it.
// - An issue changed in the second the answer was made (by the answer's Date) or the one before
//   may change again in that second with the list showing the same: it is examined again at the
//   next poll, and no ETag is kept.
//
//   PollState st = poll_state_from_json(saved);
//   ... GET issues_target(owner_repo, st.since), a changed answer ...
//   if (needs_examining(st, issue) && !examine(issue)) failed...
//   st = next_poll_state(st, answer, settled);
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace aw {

struct PollState {
  std::string since;  // the list's since= (GitHub's form); "" = every open issue
  std::string etag;   // of the list under exactly this since; "" = ask without If-None-Match
  std::map<int64_t, std::string> examined;  // issue -> issue_fingerprint when last examined
};

PollState poll_state_from_json(const nlohmann::json& j);
nlohmann::json to_json(const PollState& p);

// The poll's request target for a `since` ("" = none).
std::string issues_target(const std::string& owner_repo, const std::string& since);

// What examine() reads of a listed issue and what its triggers change: updated_at, the comment
// count, the label names, the assignees' logins, the state.
std::string issue_fingerprint(const nlohmann::json& issue);
bool needs_examining(const PollState& st, const nlohmann::json& issue);

// A changed answer to the poll.
struct ListAnswer {
  nlohmann::json items;     // every page's issues (and pull requests), oldest change first
  bool paged = false;       // GitHub linked a next page
  std::string etag;         // of the first page
  int64_t server_time = 0;  // the answer's Date, Unix seconds (without one, the watcher's clock)
};

// What to keep after a changed answer. settled: the listed issues and pull requests whose
// examination finished or was not needed.
PollState next_poll_state(const PollState& before, const ListAnswer& answer,
                          const std::set<int64_t>& settled);

// An HTTP Date ("Sun, 06 Nov 1994 08:49:37 GMT") as Unix seconds; 0 when it is not one.
int64_t http_date(const std::string& value);

}  // namespace aw
