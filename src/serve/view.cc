#include "serve/view.h"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include <algorithm>
#include <string_view>

#include "base/fs.h"

namespace aw {

namespace {

nlohmann::json duration(const UnitRecord& u) {
  int64_t a = iso_ms(u.created_at), b = iso_ms(u.ended_at);
  if (u.state == UnitState::running || a < 0 || b < 0) return nullptr;
  return b - a;
}

// A JSON file of the run folder, or null when it is absent or unreadable.
nlohmann::json run_file(const UnitRecord& u, const char* name) {
  if (u.run_dir.empty()) return nullptr;
  auto text = read_file(u.run_dir + "/" + name, 16u << 20);
  if (!text) return nullptr;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

// The forge issue a unit came from, or null. The link is given only as https (or http, for a
// local forge): the page puts it in an href, where a javascript: URL would run.
nlohmann::json issue_of(const UnitRecord& u) {
  if (u.issue <= 0) return nullptr;
  nlohmann::json j = {{"number", u.issue}, {"repo", u.forge_repo}, {"title", u.issue_title}};
  bool web = u.issue_url.rfind("https://", 0) == 0 || u.issue_url.rfind("http://", 0) == 0;
  j["url"] = web ? nlohmann::json(u.issue_url) : nlohmann::json();
  return j;
}

// The number at the end of a URL after `marker` ("/pull/12" -> 12), or null when the URL does not
// end so (a query, a fragment, more than 9 digits, no digits).
nlohmann::json number_after(const std::string& url, std::string_view marker) {
  size_t at = url.rfind(marker);
  if (at == std::string::npos) return nullptr;
  std::string digits = url.substr(at + marker.size());
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return nullptr;
  return std::stoi(digits);
}

// The pull request (merge request) a unit opened, or null: its URL (only as http(s), as the
// issue's: the page puts it in an href), its kind and number, read from the URL: GitHub's
// ".../pull/N" is a pull request #N, GitLab's ".../-/merge_requests/N" a merge request !N (the
// page names each as its forge does). The number is null when the URL does not end so.
nlohmann::json pull_of(const UnitRecord& u) {
  const std::string& url = u.pull_request;
  if (url.empty()) return nullptr;
  bool web = url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
  bool gitlab = url.find("/-/merge_requests/") != std::string::npos;
  nlohmann::json number = number_after(url, gitlab ? "/-/merge_requests/" : "/pull/");
  return {{"number", number},
          {"kind", gitlab ? "merge_request" : "pull_request"},
          {"url", web ? nlohmann::json(url) : nlohmann::json()}};
}

// A follow-up's record carries the note its source (`run --pr`, watch) wrote (kFollowUpNote).
bool follow_up(const UnitRecord& u) { return is_follow_up(u.notes); }

// The address of the pull request a unit opened or follows up, "" for neither. A follow-up's is
// the one it was started for (its record's origin), even when it published elsewhere (its own
// draft against a pull request that is not awaywork's) or not at all.
const std::string& thread_key(const UnitRecord& u) {
  if (follow_up(u) && !u.issue_url.empty()) return u.issue_url;
  return u.pull_request;
}

}  // namespace

nlohmann::json unit_thread(const UnitRecord& u, const std::vector<UnitRecord>& all) {
  // Only the record's own addresses are compared and linked (pull_of: http(s) only); nothing the
  // pull request's text says is read here.
  const std::string key = thread_key(u);
  if (key.empty()) return nullptr;
  std::vector<const UnitRecord*> members;
  bool self_seen = false;
  for (const UnitRecord& v : all)
    if (thread_key(v) == key) {
      members.push_back(&v);
      self_seen = self_seen || v.id == u.id;
    }
  if (!self_seen) members.push_back(&u);  // not in `all` (a page of the record): still shown
  // The opening unit(s) first, then the follow-ups; each by when it started.
  std::stable_sort(members.begin(), members.end(), [](const UnitRecord* a, const UnitRecord* b) {
    bool fa = follow_up(*a), fb = follow_up(*b);
    if (fa != fb) return !fa;
    return a->created_at != b->created_at ? a->created_at < b->created_at : a->id < b->id;
  });
  constexpr size_t kMax = 200;  // a page stays readable; the rest is in `awaywork units`
  bool truncated = members.size() > kMax;
  if (truncated) members.resize(kMax);
  nlohmann::json units = nlohmann::json::array();
  for (const UnitRecord* v : members)
    units.push_back({{"id", v->id},
                     {"created_at", v->created_at},
                     {"state", to_string(v->state)},
                     {"reason", v->reason},
                     {"verdict", v->verdict},
                     {"commit", v->commit},
                     {"follow_up", follow_up(*v)}});
  // The link: the address the thread is keyed by, as the records hold it.
  UnitRecord link;
  link.pull_request = key;
  return {{"pull_request", pull_of(link)}, {"units", units}, {"truncated", truncated}};
}

int64_t iso_ms(const std::string& iso) {
  int Y, M, D, h, m, s, ms = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &Y, &M, &D, &h, &m, &s, &ms) < 6)
    return -1;
  std::tm t{};
  t.tm_year = Y - 1900, t.tm_mon = M - 1, t.tm_mday = D, t.tm_hour = h, t.tm_min = m, t.tm_sec = s;
  return static_cast<int64_t>(::timegm(&t)) * 1000 + ms;
}

nlohmann::json unit_row(const UnitRecord& u) {
  // A projection of the record (to_json): its fields keep one spelling everywhere.
  nlohmann::json full = to_json(u), row;
  for (const char* key : {"id", "created_at", "ended_at", "state", "reason", "repo", "agent",
                          "profile", "isolation", "verdict", "patch_files", "branch"})
    row[key] = full[key];
  row["prompt"] = u.prompt.substr(0, u.prompt.find('\n')).substr(0, 160);
  row["refusals"] = u.refusals.size();
  row["duration_ms"] = duration(u);
  row["issue"] = issue_of(u);
  return row;
}

nlohmann::json unit_detail(const UnitRecord& u) {
  nlohmann::json j = to_json(u);
  j["duration_ms"] = duration(u);
  j["verdict_detail"] = run_file(u, "verdict.json");
  j["checked_requests"] = run_file(u, "requests.json");
  j["published"] = u.branch.empty() && u.pull_request.empty()
                       ? nlohmann::json()
                       : nlohmann::json{{"branch", u.branch},
                                        {"commit", u.commit},
                                        {"pull_request", pull_of(u)}};
  struct stat st {};
  j["log_bytes"] = ::lstat((u.run_dir + "/transcript.log").c_str(), &st) == 0 ? st.st_size : 0;
  j["issue"] = issue_of(u);
  return j;
}

}  // namespace aw
