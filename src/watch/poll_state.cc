#include "watch/poll_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/json_write.h"
#include "base/utc.h"
#include "watch/iso_time.h"

namespace aw {

using nlohmann::json;

namespace {

constexpr size_t kPage = 100;          // per_page of the poll: a full page may hide a next one
constexpr int64_t kSettleSeconds = 2;  // the answer's second and the one before

std::string text_of(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The names (or logins) of a list of objects, sorted: GitHub does not promise their order.
std::string names_of(const json& issue, const char* list, const char* key) {
  std::vector<std::string> names;
  if (issue.contains(list) && issue[list].is_array())
    for (const json& x : issue[list]) names.push_back(text_of(x, key));
  std::sort(names.begin(), names.end());
  return json_text(json(names));
}

}  // namespace

PollState poll_state_from_json(const json& j) {
  PollState p;
  if (!j.is_object()) return p;
  p.since = text_of(j, "since");
  p.etag = text_of(j, "etag");
  if (j.contains("examined") && j["examined"].is_object())
    for (const auto& [k, v] : j["examined"].items()) {
      if (!v.is_string() || k.empty() || k.size() > 18 ||
          k.find_first_not_of("0123456789") != std::string::npos)
        continue;
      p.examined[std::stoll(k)] = v.get<std::string>();
    }
  return p;
}

json to_json(const PollState& p) {
  json examined = json::object();
  for (const auto& [n, fp] : p.examined) examined[std::to_string(n)] = fp;
  return {{"since", p.since}, {"etag", p.etag}, {"examined", examined}};
}

std::string issues_target(const std::string& owner_repo, const std::string& since) {
  return fmt::format("/repos/{}/issues?state=open&sort=updated&direction=asc&per_page={}{}",
                     owner_repo, kPage, since.empty() ? "" : "&since=" + since);
}

std::string issue_fingerprint(const json& issue) {
  if (!issue.is_object()) return "";
  int64_t comments = issue.contains("comments") && issue["comments"].is_number_integer()
                         ? issue["comments"].get<int64_t>()
                         : -1;
  return fmt::format("{} {} {} {} {}", text_of(issue, "updated_at"), comments,
                     text_of(issue, "state"), names_of(issue, "labels", "name"),
                     names_of(issue, "assignees", "login"));
}

bool needs_examining(const PollState& st, const json& issue) {
  if (!issue.is_object() || !issue.contains("number") || !issue["number"].is_number_integer())
    return true;
  auto it = st.examined.find(issue["number"].get<int64_t>());
  return it == st.examined.end() || it->second != issue_fingerprint(issue);
}

PollState next_poll_state(const PollState& before, const ListAnswer& answer,
                          const std::set<int64_t>& settled) {
  PollState next;
  std::string newest = before.since;
  std::string again;  // the earliest change of an issue to be examined again; "" = none
  bool full = answer.paged;
  if (answer.items.is_array()) {
    full = full || answer.items.size() >= kPage;
    for (const json& issue : answer.items) {
      std::string updated = text_of(issue, "updated_at");
      newest = std::max(newest, updated);
      if (!issue.is_object()) continue;  // pull requests too: watch examines them (issue 26)
      int64_t n = issue.contains("number") && issue["number"].is_number_integer()
                      ? issue["number"].get<int64_t>()
                      : 0;
      if (n <= 0) continue;  // no issue to examine
      auto at = parse_iso_utc(updated);
      bool settling = at && *at + kSettleSeconds > answer.server_time;
      if (!settled.count(n) || settling) {
        if (again.empty() || updated < again) again = updated;
        continue;
      }
      next.examined[n] = issue_fingerprint(issue);
    }
  }
  if (!full) {
    // The whole list is on this page: its ETag answers for every open issue changed since.
    next.since = before.since;
    next.etag = again.empty() ? answer.etag : "";
    return next;
  }
  // A second earlier than the change it starts from: an issue changed later in that same second
  // is listed whether GitHub's since= counts that second or not (examined again only if it
  // differs, by its fingerprint).
  std::string from = again.empty() ? newest : again;
  auto t = parse_iso_utc(from);
  next.since = t ? iso_utc(*t - 1) : before.since;
  for (auto it = next.examined.begin(); it != next.examined.end();) {
    // Only what the next list can show is kept: its fingerprint starts with its updated_at.
    if (it->second.substr(0, it->second.find(' ')) < next.since)
      it = next.examined.erase(it);
    else
      ++it;
  }
  return next;
}

int64_t http_date(const std::string& value) {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char wday[4] = {}, mon[4] = {}, zone[4] = {};
  int d = 0, y = 0, h = 0, mi = 0, s = 0, n = 0;
  if (std::sscanf(value.c_str(), "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d %3[A-Z]%n", wday, &d,
                  mon, &y, &h, &mi, &s, zone, &n) != 8 ||
      static_cast<size_t>(n) != value.size() || std::strcmp(zone, "GMT") != 0)
    return 0;
  for (int m = 0; m < 12; ++m)
    if (std::strcmp(mon, kMonths[m]) == 0) return utc_seconds(y, m + 1, d, h, mi, s).value_or(0);
  return 0;
}

}  // namespace aw
