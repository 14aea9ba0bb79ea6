#include "watch/claim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "forge/marker.h"
#include "watch/iso_time.h"
#include "watch/watch_forge.h"

namespace aw {

using nlohmann::json;

namespace {

// key=value from the marker's text.
std::string field(std::string_view marker, const std::string& key) {
  size_t at = marker.find(" " + key + "=");
  if (at == std::string_view::npos) return "";
  at += key.size() + 2;
  size_t end = marker.find(' ', at);
  return std::string(marker.substr(at, end == std::string_view::npos ? end : end - at));
}

// The claim time claim_body writes on the first line: "... this issue (claimed 2026-12-01T...Z)."
int64_t claimed_at(std::string_view body) {
  std::string_view first = body.substr(0, body.find('\n'));
  size_t at = first.find("(claimed ");
  if (at == std::string_view::npos) return 0;
  at += std::string_view("(claimed ").size();
  size_t end = first.find(')', at);
  if (end == std::string_view::npos) return 0;
  return parse_iso_utc(std::string(first.substr(at, end - at))).value_or(0);
}

bool earlier(const ClaimSeen& a, const ClaimSeen& b) {
  return a.created != b.created ? a.created < b.created : a.comment_id < b.comment_id;
}

}  // namespace

std::vector<ClaimSeen> claims_in(const json& comments,
                                 const std::function<bool(const ForgeUser&)>& trusted) {
  std::vector<ClaimSeen> out;
  if (!comments.is_array()) return out;
  for (const json& j : comments) {
    auto c = comment_from_json(j, "comments");
    if (!c || !trusted(c->author)) continue;
    // Only the marker that ends the comment, in exactly the form claim_body writes: a marker
    // form elsewhere in it (a unit's reason quoting the agent, a quote) is never a claim.
    auto marker = trailing_marker(c->body);
    if (!marker || !marker->starts_with("claim ")) continue;
    ClaimSeen k;
    k.comment_id = c->id;
    k.author = c->author.login;
    k.host = field(*marker, "host");
    k.state = field(*marker, "state");
    k.key = field(*marker, "key");
    std::string pid = field(*marker, "pid");
    if (k.host.empty() || k.state.empty() || pid.empty() ||
        pid.find_first_not_of("0123456789") != std::string::npos ||
        *marker != fmt::format("claim host={} pid={} state={}{}", k.host, pid, k.state,
                               k.key.empty() ? "" : " key=" + k.key))
      continue;
    k.pid = std::atoll(pid.c_str());
    k.created = parse_iso_utc(c->created_at).value_or(0);
    k.updated = parse_iso_utc(c->updated_at).value_or(k.created);
    k.since = claimed_at(c->body);
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end(), earlier);
  return out;
}

std::string claim_body(const Claimant& me, int64_t since, const std::string& state,
                       const std::string& text) {
  // host and pid are awaywork's own words (a host name has no blanks); the marker ends the body.
  // The text may hold a unit's reason, with the agent's words in it: with_marker defuses any
  // marker form there, so no agent can make this comment read as another watcher's claim.
  // A follow-up's key is follow_up_key's (no blank, no '>'): the marker stays one token each.
  return with_marker(
      fmt::format("**awaywork** on `{}` {} {} (claimed {}).\n\n{}", me.host,
                  state == "active" ? "is working on" : "has let go of",
                  me.key.empty() ? std::string("this issue")
                                 : fmt::format("a follow-up here (trigger `{}`)", me.key),
                  iso_utc(since), text),
      fmt::format("<!-- awaywork:claim host={} pid={} state={}{} -->", me.host, me.pid, state,
                  me.key.empty() ? "" : " key=" + me.key));
}

std::string follow_up_key(const std::string& kind, const std::string& id) {
  std::string out;
  for (unsigned char c : kind + "-" + id) {
    if (out.size() >= 120) break;
    out += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
  }
  return out;
}

Status add_labels(ForgeSession& s, int64_t issue, const std::vector<std::string>& labels) {
  return github_watch_forge(s)->add_labels(issue, labels);
}

Status remove_label(ForgeSession& s, int64_t issue, const std::string& label) {
  return github_watch_forge(s)->remove_label(issue, label);
}

namespace {

// Takes a claim of ours off the issue: deleted; where that fails, edited to `state` (when given)
// so that it holds nobody off.
Status drop_claim(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& who,
                  int64_t since, const std::string& state, const std::string& text) {
  Status gone = s.delete_comment(issue, comment_id);
  if (gone) return {};
  std::string why = gone.error().message;
  if (state.empty()) return fail("{}", why);
  return with_context(update_claim_state(s, issue, comment_id, who, since, state, text),
                      fmt::format("{}; then", why));
}

// Deletes what this watcher left on the issue (but `keep`); what stays is said in `left`.
void drop_own(WatchForge& s, int64_t issue, const std::vector<ClaimSeen>& own, int64_t keep,
              std::string& left) {
  for (const ClaimSeen& c : own) {
    if (c.comment_id == keep) continue;
    Status st = drop_claim(s, issue, c.comment_id, {c.host, c.pid, c.key}, c.since,
                           c.state == "active" ? "ended" : "",
                           "Ended: a later claim of the same watcher replaced this one.");
    if (!st)
      left += fmt::format("{}comment {}: {}", left.empty() ? "" : "; ", c.comment_id,
                          st.error().message);
  }
}

// claim_issue's and claim_follow_up's rules; `labels`: the running label goes on the issue.
Result<ClaimResult> claim_on(WatchForge& s, int64_t issue, const Claimant& me, int64_t claim_ttl,
                             int64_t now, int64_t handled_after,
                             const std::function<bool(const ForgeUser&)>& trusted,
                             const OwnClaims& own, const std::function<void()>& before_post,
                             bool labels) {
  auto live = [&](const ClaimSeen& c) {
    return c.state == "active" && now - c.updated <= claim_ttl;
  };
  // Ours by what the slot recorded: its id, or the claimant and time of an unfinished attempt
  // (awaywork's login, that host and pid, that second: no other watcher's).
  auto ours = [&](const ClaimSeen& c) {
    if (c.author != s.self_login()) return false;
    if (own.ended > 0 && c.comment_id == own.ended) return true;
    return own.attempt.pid > 0 && c.host == own.attempt.host && c.pid == own.attempt.pid &&
           c.since == own.attempt_since;
  };
  ClaimResult out;
  AW_TRY(json before, s.comments(issue));
  std::vector<ClaimSeen> seen = claims_in(before, trusted), left;
  for (const ClaimSeen& c : seen)
    if (ours(c)) left.push_back(c);
  for (const ClaimSeen& c : seen) {
    bool handled =
        handled_after > 0 && c.state == "ended" && c.created >= handled_after && !ours(c);
    // A follow-up's batch another watcher has claimed: run, or running (yielded claims held
    // nothing and count for nothing).
    if (!me.key.empty() && c.key == me.key && (c.state == "active" || c.state == "ended") &&
        !ours(c))
      handled = true;
    if (!live(c) && !handled) continue;
    if (ours(c)) {
      // Ours and the earliest live claim: every other watcher yields to it, so it is taken up
      // again (a new claim would come after the one they yield to, and nobody would run it).
      out.since = c.since > 0 ? c.since : now;
      if (labels) AW_CHECK(s.add_labels(issue, {kRunningLabel}));
      AW_CHECK(update_claim(s, issue, c.comment_id, me, out.since,
                            "Status: starting again (an earlier attempt of this watcher posted "
                            "this claim and stopped)."));
      out.won = out.resumed = true;
      out.comment_id = c.comment_id;
      drop_own(s, issue, left, c.comment_id, out.left);
      return out;
    }
    out.winner = c;  // someone holds it already: nothing is posted, nothing of ours stays
    drop_own(s, issue, left, 0, out.left);
    return out;
  }
  if (labels) AW_CHECK(s.add_labels(issue, {kRunningLabel}));
  std::string stale;
  for (const ClaimSeen& c : seen)
    if (c.state == "active" && !ours(c))
      stale = fmt::format(
          "Took over the stale claim of `{}` (silent since {}, longer than the "
          "claim_ttl of {} s).",
          c.host, iso_utc(c.updated), claim_ttl);
  if (before_post) before_post();
  AW_TRY(int64_t mine,
         s.post_comment(issue, claim_body(me, now, "active",
                                          stale.empty() ? "Status: starting."
                                                        : stale + "\n\nStatus: starting.")));
  out.comment_id = mine;
  out.since = now;
  out.note = stale;
  std::string yielded = "Yielded: the claim was not read back.";
  // Read again: a claim posted at the same time by another watcher may be earlier than ours.
  auto after = s.comments(issue);
  if (!after) {
    // Not known to have won: our claim is taken back so that it holds nobody off.
    (void)drop_claim(s, issue, mine, me, now, "yielded", yielded);
    return tl::unexpected(after.error());
  }
  for (const ClaimSeen& c : claims_in(*after, trusted)) {
    if (!live(c) && c.comment_id != mine) continue;
    if (c.comment_id == mine) {
      out.won = true;
      drop_own(s, issue, left, 0, out.left);
      return out;
    }
    out.winner = c;
    break;
  }
  if (out.winner.comment_id == 0) {  // ours not seen back: claim nothing, say so
    out.winner.host = "(our claim was not listed back)";
  }
  // Lost: our claim goes (where GitHub does not delete it, it says it yielded), and so does what
  // we left before: the issue keeps the winner's comment.
  AW_CHECK(drop_claim(s, issue, mine, me, now, "yielded",
                      fmt::format("Yielded to the earlier claim of `{}` (comment {}).",
                                  out.winner.host, out.winner.comment_id)));
  drop_own(s, issue, left, 0, out.left);
  return out;
}

}  // namespace

Result<ClaimResult> claim_issue(WatchForge& s, int64_t issue, const Claimant& me, int64_t claim_ttl,
                                int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted,
                                const OwnClaims& own, const std::function<void()>& before_post) {
  return claim_on(s, issue, me, claim_ttl, now, handled_after, trusted, own, before_post, true);
}

Result<ClaimResult> claim_follow_up(WatchForge& changes, int64_t number, const Claimant& me,
                                    int64_t claim_ttl, int64_t now,
                                    const std::function<bool(const ForgeUser&)>& trusted,
                                    const OwnClaims& own,
                                    const std::function<void()>& before_post) {
  return claim_on(changes, number, me, claim_ttl, now, 0, trusted, own, before_post, false);
}

Status update_claim_state(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                          int64_t since, const std::string& state, const std::string& text) {
  return s.edit_comment(issue, comment_id, claim_body(me, since, state, text));
}

Status update_claim(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                    int64_t since, const std::string& text) {
  return update_claim_state(s, issue, comment_id, me, since, "active", text);
}

Status release_claim(WatchForge& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end) {
  Status first;
  auto keep = [&](Status st) {
    if (!st && first) first = st;
  };
  if (comment_id > 0)
    keep(update_claim_state(s, issue, comment_id, me, since, end.state, end.text));
  for (const auto& l : end.remove_labels) keep(s.remove_label(issue, l));
  keep(s.add_labels(issue, end.add_labels));
  return first;
}

// GitHub's session: the same rules through its WatchForge.
Result<ClaimResult> claim_issue(ForgeSession& s, int64_t issue, const Claimant& me,
                                int64_t claim_ttl, int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted,
                                const OwnClaims& own, const std::function<void()>& before_post) {
  return claim_issue(*github_watch_forge(s), issue, me, claim_ttl, now, handled_after, trusted, own,
                     before_post);
}

Status update_claim_state(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                          const std::string& state, const std::string& text) {
  return update_claim_state(*github_watch_forge(s), 0, comment_id, me, since, state, text);
}

Status update_claim(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                    const std::string& text) {
  return update_claim(*github_watch_forge(s), 0, comment_id, me, since, text);
}

Status release_claim(ForgeSession& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end) {
  return release_claim(*github_watch_forge(s), issue, comment_id, me, since, end);
}

}  // namespace aw
