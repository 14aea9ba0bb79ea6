// Claims keep two watchers (on one machine or several) off one issue: before a unit starts, watch
// adds the awaywork:running label and posts its claim comment (host, pid, time, a hidden marker);
// then it reads the issue's comments again and the earliest active claim wins. The loser edits
// its claim to say it yielded. A claim silent (not edited) for longer than claim_ttl is stale and
// may be taken over, which the new claim says. The winner edits its claim as the unit goes
// (its heartbeat) and at the end, when the labels are settled.
//
//   AW_TRY(ClaimResult c, claim_issue(session, 42, me, ttl, now, trusted));
//   if (!c.won) ... c.winner;  later: release_claim(session, 42, c.comment_id, me, end);
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "forge/model.h"
#include "forge/session.h"

namespace aw {

inline constexpr const char* kRunningLabel = "awaywork:running";
inline constexpr const char* kDoneLabel = "awaywork:done";

// Who this watcher is, in its claims.
struct Claimant {
  std::string host;
  int64_t pid = 0;
};

// A claim found in an issue's comments.
struct ClaimSeen {
  int64_t comment_id = 0;
  std::string author, host, state;  // state: active, yielded, ended
  int64_t pid = 0;
  int64_t created = 0, updated = 0;  // Unix seconds
};

// The claims in a comment list, oldest first; only those written by a trusted login count (a
// stranger's comment that imitates the marker is ignored), and only by the marker that ends the
// comment in claim_body's exact form (forge/marker.h): a marker form elsewhere in it is text.
std::vector<ClaimSeen> claims_in(const nlohmann::json& comments,
                                 const std::function<bool(const ForgeUser&)>& trusted);

// The comment text of a claim: status line(s) then the marker.
std::string claim_body(const Claimant& me, int64_t since, const std::string& state,
                       const std::string& text);

struct ClaimResult {
  bool won = false;
  int64_t comment_id = 0;  // ours (0 when none was posted)
  ClaimSeen winner;        // when lost: the claim that won
  std::string note;        // "took over the stale claim of host H (silent since T)"
};

// Claims an issue. Active claims by others that are not stale make it yield without posting, and
// so does any claim made since handled_after (the trigger's time; 0 = do not look): another
// watcher has already run what this trigger asked for.
Result<ClaimResult> claim_issue(ForgeSession& s, int64_t issue, const Claimant& me,
                                int64_t claim_ttl, int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted);

// Edits our claim comment to a state (active, yielded, ended) and a status text.
Status update_claim_state(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                          const std::string& state, const std::string& text);
// Edits our claim comment (a heartbeat or a phase); the claim stays active.
Status update_claim(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                    const std::string& text);

struct ClaimEnd {
  std::string state = "ended";  // the marker's state
  std::string text;             // the final status, for people
  std::vector<std::string> remove_labels, add_labels;
};
// The end: the comment edited to its final text, labels removed and added. Every step is tried;
// the first failure is returned.
Status release_claim(ForgeSession& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end);

// Labels on an issue, by the API (a missing label is not an error when removing).
Status add_labels(ForgeSession& s, int64_t issue, const std::vector<std::string>& labels);
Status remove_label(ForgeSession& s, int64_t issue, const std::string& label);

}  // namespace aw
