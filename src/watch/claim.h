// Claims keep two watchers (on one machine or several) off one issue: before a unit starts, watch
// adds the awaywork:running label and posts its claim comment (host, pid, time, a hidden marker);
// then it reads the issue's comments again and the earliest active claim wins. The loser deletes
// its claim (where GitHub refuses, edits it to say it yielded). A claim silent (not edited) for
// longer than claim_ttl is stale and may be taken over, which the new claim says. The winner edits
// its claim as the unit goes (its heartbeat) and at the end, when the labels are settled. So that
// the issue keeps one comment of awaywork's per trigger, what a watcher left itself (OwnClaims) is
// taken up again or deleted.
//
//   AW_TRY(ClaimResult c, claim_issue(session, 42, me, ttl, now, 0, trusted, own, save));
//   if (!c.won) ... c.winner;  later: release_claim(session, 42, c.comment_id, me, end);
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "forge/model.h"
#include "forge/session.h"
#include "watch/watch_forge.h"

namespace aw {

inline constexpr const char* kRunningLabel = "awaywork:running";
inline constexpr const char* kDoneLabel = "awaywork:done";

// Who this watcher is, in its claims; on a follow-up's claim also what it claims (`key`, the
// trigger batch: claim_follow_up), kept in every edit of that claim. "" on an issue's claim.
struct Claimant {
  Claimant() = default;
  Claimant(std::string h, int64_t p, std::string k = "")
      : host(std::move(h)), pid(p), key(std::move(k)) {}
  std::string host;
  int64_t pid = 0;
  std::string key;
};

// A claim found in an issue's comments.
struct ClaimSeen {
  int64_t comment_id = 0;
  std::string author, host, state;  // state: active, yielded, ended
  std::string key;                   // a follow-up's trigger batch; "" on an issue's claim
  int64_t pid = 0;
  int64_t created = 0, updated = 0;  // Unix seconds
  int64_t since = 0;  // the claim's time, as its first line says ("claimed ..."); 0 = not said
};

// The claims in a comment list, oldest first; only those written by a trusted login count (a
// stranger's comment that imitates the marker is ignored), and only by the marker that ends the
// comment in claim_body's exact form (forge/marker.h): a marker form elsewhere in it is text.
std::vector<ClaimSeen> claims_in(const nlohmann::json& comments,
                                 const std::function<bool(const ForgeUser&)>& trusted);

// The comment text of a claim: status line(s) then the marker (with the key, when me has one).
std::string claim_body(const Claimant& me, int64_t since, const std::string& state,
                       const std::string& text);

struct ClaimResult {
  bool won = false;
  int64_t comment_id = 0;  // ours (0 when none was posted)
  int64_t since = 0;       // when won: the claim's time (now, or the claim taken up again)
  bool resumed = false;    // when won: an active claim of our own taken up again, none posted
  ClaimSeen winner;        // when lost: the claim that won
  std::string note;        // "took over the stale claim of host H (silent since T)"
  std::string left;        // what of our own could not be deleted (for the log); "" = nothing
};

// What this watcher (or an earlier run of it on the same state) left on the issue for the trigger
// it claims again, as its slot recorded: the claim it ended before queueing the issue again (a
// retry, the window's end, a shutdown), and an attempt that posted a claim whose id it never
// learned (killed before keeping it, or the answer lost), known by its claimant and time. Neither
// is another watcher's claim, so neither makes this one yield.
struct OwnClaims {
  int64_t ended = 0;          // the comment id of our claim for the same trigger; 0 = none
  Claimant attempt;           // an unfinished attempt's claimant; pid 0 = none
  int64_t attempt_since = 0;  // and its claim time
};

// Claims an issue. Active claims by others that are not stale make it yield without posting, and
// so does any claim made since handled_after (the trigger's time; 0 = do not look): another
// watcher has already run what this trigger asked for. When the earliest live claim is one of
// own's (others yield to it), it is taken up again instead of a new one posted; the rest of own's
// are deleted once it has decided (won or lost), and so is its new claim when it loses, so the
// issue keeps one comment of awaywork's. before_post runs just before the claim is posted: the
// caller records the attempt (me, now) there, so a claim whose answer never comes is known later.
// Every rule here is the forge's WatchForge's (watch_forge.h): one for GitHub and GitLab. The
// ForgeSession forms are GitHub's, for its callers (GitHub addresses a comment without its issue).
Result<ClaimResult> claim_issue(WatchForge& s, int64_t issue, const Claimant& me, int64_t claim_ttl,
                                int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted,
                                const OwnClaims& own = {},
                                const std::function<void()>& before_post = {});
Result<ClaimResult> claim_issue(ForgeSession& s, int64_t issue, const Claimant& me,
                                int64_t claim_ttl, int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted,
                                const OwnClaims& own = {},
                                const std::function<void()>& before_post = {});

// Follow-ups on pull and merge requests (issue 26) take the same claims, on the conversation of
// the pull request (changes: WatchForge::changes()), so that of several watchers of one forge only
// one starts a follow-up for one trigger batch. me.key names the batch: the newest admitted
// trigger it holds (follow_up_key). The rules are claim_issue's, with two differences: a claim of
// another watcher with the same key, active or ended, makes it yield without posting (that batch
// is run or running: a follow-up reads every trigger up to its start), and no label is put on the
// pull request. Live claims of other keys still make it yield: one follow-up at a time on a pull
// request, and the winner's watcher batches what arrives meanwhile.
Result<ClaimResult> claim_follow_up(WatchForge& changes, int64_t number, const Claimant& me,
                                    int64_t claim_ttl, int64_t now,
                                    const std::function<bool(const ForgeUser&)>& trusted,
                                    const OwnClaims& own = {},
                                    const std::function<void()>& before_post = {});

// The key of a follow-up trigger: its kind and id ("review-123", "review_comment-456"), or a
// failing check's head and name ("check-SHA-build"); only letters, digits and . _ - (the marker
// holds it), at most 120 characters.
std::string follow_up_key(const std::string& kind, const std::string& id);

// Edits our claim comment to a state (active, yielded, ended) and a status text.
Status update_claim_state(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                          int64_t since, const std::string& state, const std::string& text);
Status update_claim_state(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                          const std::string& state, const std::string& text);
// Edits our claim comment (a heartbeat or a phase); the claim stays active.
Status update_claim(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                    int64_t since, const std::string& text);
Status update_claim(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                    const std::string& text);

struct ClaimEnd {
  std::string state = "ended";  // the marker's state
  std::string text;             // the final status, for people
  std::vector<std::string> remove_labels, add_labels;
};
// The end: the comment edited to its final text, labels removed and added. Every step is tried;
// the first failure is returned.
Status release_claim(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end);
Status release_claim(ForgeSession& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end);

// Labels on an issue, by the API (a missing label is not an error when removing).
Status add_labels(ForgeSession& s, int64_t issue, const std::vector<std::string>& labels);
Status remove_label(ForgeSession& s, int64_t issue, const std::string& label);

}  // namespace aw
