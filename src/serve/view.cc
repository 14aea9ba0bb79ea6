#include "serve/view.h"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/fs.h"
#include "config/repos.h"

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

// A branch as a path on a forge's site: every byte but encodeURIComponent's unreserved ones
// (A-Z a-z 0-9 - _ . ! ~ * ' ( )) as %XX, each segment so, the '/' between segments kept. A branch
// may hold '#', '?', '%' or non-ASCII letters; escaped, it stays the one path it names.
std::string escape_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  static constexpr std::string_view kKept = "-_.!~*'()/";
  std::string out;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum || kKept.find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// "https://" or "http://" when `url` starts so (the only schemes given as links), else "".
std::string_view web_scheme(std::string_view url) {
  if (url.starts_with("https://")) return "https://";
  if (url.starts_with("http://")) return "http://";
  return "";
}

// A forge's site from its API's address (what the config names): GitHub Enterprise's
// https://HOST/api/v3 and GitLab's https://HOST[/PREFIX]/api/v4 are served at https://HOST
// [/PREFIX]; api.github.com is github.com's. "" when api_url is not http(s).
std::string web_root(const ForgeConfig& forge) {
  std::string_view url = forge.api_url, scheme = web_scheme(url);
  if (scheme.empty()) return "";
  std::string_view rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string host(rest.substr(0, slash));
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.ends_with("/api/v3") || path.ends_with("/api/v4"))
    path.remove_suffix(7);
  else
    path = "";  // an API at another path: its site is taken to be at the host's root
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (host.empty() || host.find_first_of("?#@") != std::string::npos) return "";
  if (host == "api.github.com") host = "github.com";
  return fmt::format("{}{}{}", scheme, host, path);
}

// The branch's page from the config, when the unit's repository is a forge one there; else "".
std::string branch_url_from_config(const UnitRecord& u, const Config& cfg,
                                   const std::string& branch) {
  auto repo = find_forge_repo(cfg, u.repo);
  if (!repo) return "";
  auto forge = cfg.forges.find(repo->forge.forge);
  if (forge == cfg.forges.end()) return "";
  std::string root = web_root(forge->second);
  if (root.empty()) return "";
  bool gitlab = forge->second.kind == "gitlab";
  return fmt::format("{}/{}{}{}", root, escape_path(repo->forge.path()),
                     gitlab ? "/-/tree/" : "/tree/", branch);
}

// The branch's page from a recorded address of a pull request (merge request) or issue, as the
// page derived it before (issue 25): GitHub's HOST/OWNER/REPO/pull/N (or /issues/N) gives
// HOST/OWNER/REPO/tree/BRANCH; GitLab's HOST/GROUP/.../PROJECT/-/merge_requests/N (or
// /-/issues/N, nested groups) gives .../PROJECT/-/tree/BRANCH. "" for any other shape: not
// http(s), a query, a fragment, a space, an empty segment, a tail that is not a number.
std::string branch_url_from_address(const std::string& url, const std::string& branch) {
  std::string_view scheme = web_scheme(url);
  if (scheme.empty()) return "";
  for (char ch : url)
    if (ch == '?' || ch == '#' || static_cast<unsigned char>(ch) <= ' ' || ch == 0x7f) return "";
  std::vector<std::string_view> segs;  // HOST, then each segment of the path
  std::string_view rest = std::string_view(url).substr(scheme.size());
  for (size_t at = 0;;) {
    size_t slash = rest.find('/', at);
    segs.push_back(rest.substr(at, slash == std::string_view::npos ? slash : slash - at));
    if (segs.back().empty()) return "";
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  auto number = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  size_t n = segs.size();
  // What the tail takes off the address: "/" before each of its segments.
  auto without_tail = [&](size_t tail) {
    size_t cut = 0;
    for (size_t i = n - tail; i < n; ++i) cut += 1 + segs[i].size();
    return url.substr(0, url.size() - cut);
  };
  if (n >= 6 && segs[n - 3] == "-" &&
      (segs[n - 2] == "merge_requests" || segs[n - 2] == "issues") && number(segs[n - 1]))
    return without_tail(3) + "/-/tree/" + branch;
  if (n == 5 && (segs[3] == "pull" || segs[3] == "issues") && number(segs[4]))
    return without_tail(2) + "/tree/" + branch;
  return "";
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

std::string branch_url(const UnitRecord& u, const Config& cfg) {
  if (u.branch.empty()) return "";
  std::string branch = escape_path(u.branch);
  std::string url = branch_url_from_config(u, cfg, branch);
  if (url.empty()) url = branch_url_from_address(u.pull_request, branch);
  // The issue's address as the page links it (issue_of: only for a unit from an issue).
  if (url.empty() && u.issue > 0) url = branch_url_from_address(u.issue_url, branch);
  return url;
}

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

nlohmann::json unit_detail(const UnitRecord& u, const Config& cfg) {
  nlohmann::json j = to_json(u);
  j["duration_ms"] = duration(u);
  j["verdict_detail"] = run_file(u, "verdict.json");
  j["checked_requests"] = run_file(u, "requests.json");
  j["published"] = u.branch.empty() && u.pull_request.empty()
                       ? nlohmann::json()
                       : nlohmann::json{{"branch", u.branch},
                                        {"branch_url", branch_url(u, cfg)},
                                        {"commit", u.commit},
                                        {"pull_request", pull_of(u)}};
  struct stat st {};
  j["log_bytes"] = ::lstat((u.run_dir + "/transcript.log").c_str(), &st) == 0 ? st.st_size : 0;
  j["issue"] = issue_of(u);
  return j;
}

}  // namespace aw
