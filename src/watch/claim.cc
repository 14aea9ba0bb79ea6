#include "watch/claim.h"

#include <fmt/format.h>

#include <algorithm>

#include "forge/marker.h"
#include "watch/iso_time.h"

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

std::string escape_path(const std::string& label) {
  std::string out;
  for (unsigned char c : label) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string comments_of(ForgeSession& s, int64_t issue) {
  return fmt::format("/repos/{}/issues/{}/comments?per_page=100", s.owner_repo, issue);
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
    std::string pid = field(*marker, "pid");
    if (k.host.empty() || k.state.empty() || pid.empty() ||
        pid.find_first_not_of("0123456789") != std::string::npos ||
        *marker != fmt::format("claim host={} pid={} state={}", k.host, pid, k.state))
      continue;
    k.pid = std::atoll(pid.c_str());
    k.created = parse_iso_utc(c->created_at).value_or(0);
    k.updated = parse_iso_utc(c->updated_at).value_or(k.created);
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
  return with_marker(
      fmt::format("**awaywork** on `{}` {} this issue (claimed {}).\n\n{}", me.host,
                  state == "active" ? "is working on" : "has let go of", iso_utc(since), text),
      fmt::format("<!-- awaywork:claim host={} pid={} state={} -->", me.host, me.pid, state));
}

Status add_labels(ForgeSession& s, int64_t issue, const std::vector<std::string>& labels) {
  if (labels.empty()) return {};
  return s.gh
      .post(fmt::format("/repos/{}/issues/{}/labels", s.owner_repo, issue),
            json{{"labels", labels}})
      .map([](json) {});
}

Status remove_label(ForgeSession& s, int64_t issue, const std::string& label) {
  std::string target =
      fmt::format("/repos/{}/issues/{}/labels/{}", s.owner_repo, issue, escape_path(label));
  AW_TRY(ApiReply r, s.gh.call("DELETE", target));
  if (r.status == 200 || r.status == 204 || r.status == 404) return {};
  return fail("{}", s.gh.describe("DELETE", target, r));
}

Result<ClaimResult> claim_issue(ForgeSession& s, int64_t issue, const Claimant& me,
                                int64_t claim_ttl, int64_t now, int64_t handled_after,
                                const std::function<bool(const ForgeUser&)>& trusted) {
  auto live = [&](const ClaimSeen& c) {
    return c.state == "active" && now - c.updated <= claim_ttl;
  };
  ClaimResult out;
  AW_TRY(json before, s.gh.get_all(comments_of(s, issue)));
  for (const ClaimSeen& c : claims_in(before, trusted))
    if (live(c) || (handled_after > 0 && c.state == "ended" && c.created >= handled_after)) {
      out.winner = c;  // someone holds it already: nothing is posted
      return out;
    }
  AW_CHECK(add_labels(s, issue, {kRunningLabel}));
  std::string stale;
  for (const ClaimSeen& c : claims_in(before, trusted))
    if (c.state == "active")
      stale = fmt::format(
          "Took over the stale claim of `{}` (silent since {}, longer than the "
          "claim_ttl of {} s).",
          c.host, iso_utc(c.updated), claim_ttl);
  AW_TRY(json made,
         s.gh.post(fmt::format("/repos/{}/issues/{}/comments", s.owner_repo, issue),
                   json{{"body", claim_body(me, now, "active",
                                            stale.empty() ? "Status: starting."
                                                          : stale + "\n\nStatus: starting.")}}));
  AW_TRY(ForgeComment mine, comment_from_json(made, "POST comments"));
  out.comment_id = mine.id;
  out.note = stale;
  // Read again: a claim posted at the same time by another watcher may be earlier than ours.
  AW_TRY(json after, s.gh.get_all(comments_of(s, issue)));
  for (const ClaimSeen& c : claims_in(after, trusted)) {
    if (!live(c) && c.comment_id != mine.id) continue;
    if (c.comment_id == mine.id) {
      out.won = true;
      return out;
    }
    out.winner = c;
    break;
  }
  if (out.winner.comment_id == 0) {  // ours not seen back: claim nothing, say so
    out.winner.host = "(our claim was not listed back)";
  }
  AW_CHECK(update_claim_state(s, mine.id, me, now, "yielded",
                              fmt::format("Yielded to the earlier claim of `{}` (comment {}).",
                                          out.winner.host, out.winner.comment_id)));
  return out;
}

Status update_claim_state(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                          const std::string& state, const std::string& text) {
  return s.gh
      .patch(fmt::format("/repos/{}/issues/comments/{}", s.owner_repo, comment_id),
             json{{"body", claim_body(me, since, state, text)}})
      .map([](json) {});
}

Status update_claim(ForgeSession& s, int64_t comment_id, const Claimant& me, int64_t since,
                    const std::string& text) {
  return update_claim_state(s, comment_id, me, since, "active", text);
}

Status release_claim(ForgeSession& s, int64_t issue, int64_t comment_id, const Claimant& me,
                     int64_t since, const ClaimEnd& end) {
  Status first;
  auto keep = [&](Status st) {
    if (!st && first) first = st;
  };
  if (comment_id > 0) keep(update_claim_state(s, comment_id, me, since, end.state, end.text));
  for (const auto& l : end.remove_labels) keep(remove_label(s, issue, l));
  keep(add_labels(s, issue, end.add_labels));
  return first;
}

}  // namespace aw
