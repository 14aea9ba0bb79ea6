#include "serve/route.h"

#include <set>
#include <vector>

namespace aw {

namespace {

tl::unexpected<RouteError> refuse(int status, std::string message) {
  return tl::unexpected<RouteError>(RouteError{status, std::move(message)});
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t p = 0;;) {
    size_t q = s.find(sep, p);
    out.push_back(s.substr(p, q == std::string_view::npos ? std::string_view::npos : q - p));
    if (q == std::string_view::npos) return out;
    p = q + 1;
  }
}

bool credential_key(std::string_view k) {
  static const std::set<std::string_view> keys = {
      "token", "access_token", "auth", "authorization", "bearer", "key", "api_key", "ticket"};
  return keys.count(k) > 0;
}

// The query keys each route accepts; an unknown key is an error, so a typo is not ignored.
const std::set<std::string>& accepted_keys(RouteKind k) {
  static const std::set<std::string> none, units = {"state", "repo", "issue", "limit", "offset"},
                                           log = {"offset", "end", "download"},
                                           marks = {"offset", "end"};
  if (k == RouteKind::units) return units;
  if (k == RouteKind::log) return log;
  if (k == RouteKind::marks) return marks;
  return none;
}

tl::expected<std::map<std::string, std::string>, RouteError> parse_query(std::string_view q,
                                                                         RouteKind kind) {
  std::map<std::string, std::string> out;
  if (q.empty()) return out;
  const auto& keys = accepted_keys(kind);
  for (auto part : split(q, '&')) {
    if (part.empty()) continue;
    size_t eq = part.find('=');
    auto key = decode_component(part.substr(0, eq));
    auto value = decode_component(eq == std::string_view::npos ? "" : part.substr(eq + 1));
    if (!key || !value) return refuse(400, "the query string has a malformed %-escape");
    if (!keys.count(*key)) {
      std::string allowed;
      for (const auto& k : keys) allowed += (allowed.empty() ? "" : ", ") + k;
      return refuse(400, fmt::format("unknown query parameter '{}'; this route accepts {}",
                                     key->substr(0, 40), allowed.empty() ? "none" : allowed));
    }
    if (!out.emplace(*key, *value).second)
      return refuse(400, fmt::format("query parameter '{}' is given twice; give it once", *key));
  }
  return out;
}

struct Match {
  RouteKind kind;
  const char* method;
};

tl::expected<Route, RouteError> match_api(std::string_view method,
                                          const std::vector<std::string_view>& seg) {
  // seg: after "api", "v1".
  Route r;
  auto want = [&](RouteKind k, const char* m) -> tl::expected<Route, RouteError> {
    if (method != m)
      return refuse(405, fmt::format("this route takes {}, not {}", m, std::string(method)));
    r.kind = k;
    return r;
  };
  if (seg.size() == 1 && seg[0] == "config") return want(RouteKind::config, "GET");
  if (seg.size() == 1 && seg[0] == "doctor") return want(RouteKind::doctor, "GET");
  if (seg.size() == 1 && seg[0] == "watcher") return want(RouteKind::watcher, "GET");
  if (seg.size() == 1 && seg[0] == "units")
    return want(method == "POST" ? RouteKind::submit : RouteKind::units,
                method == "POST" ? "POST" : "GET");
  if (seg.size() >= 2 && seg.size() <= 3 && seg[0] == "units") {
    if (!valid_unit_id(seg[1]))
      return refuse(400,
                    "a unit id is letters, digits and '-' only (as `awaywork units` prints it)");
    r.unit_id = std::string(seg[1]);
    if (seg.size() == 2) return want(RouteKind::unit, "GET");
    static const std::vector<std::pair<std::string_view, Match>> subs = {
        {"patch", {RouteKind::patch, "GET"}},    {"log", {RouteKind::log, "GET"}},
        {"marks", {RouteKind::marks, "GET"}},    {"cancel", {RouteKind::cancel, "POST"}},
        {"replay", {RouteKind::replay, "POST"}}, {"apply", {RouteKind::apply, "POST"}},
        {"events", {RouteKind::events, "GET"}},  {"thread", {RouteKind::thread, "GET"}}};
    for (const auto& [name, m] : subs)
      if (seg[2] == name) return want(m.kind, m.method);
  }
  return refuse(404, "no such API route; the routes are listed in docs/serve.md");
}

}  // namespace

bool valid_unit_id(std::string_view id) {
  if (id.empty() || id.size() > 80 || id[0] == '-') return false;
  for (char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

Result<std::string> decode_component(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
      int lo = hi >= 0 ? hex_value(s[i + 2]) : -1;
      if (lo < 0) return fail("bad %-escape");
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool query_has_credential(std::string_view target) {
  size_t q = target.find('?');
  if (q == std::string_view::npos) return false;
  for (auto part : split(target.substr(q + 1), '&')) {
    auto key = decode_component(part.substr(0, part.find('=')));
    if (!key) continue;
    std::string lower;
    for (char c : *key) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (credential_key(lower)) return true;
  }
  return false;
}

tl::expected<Route, RouteError> parse_route(std::string_view method, std::string_view target) {
  if (target.empty() || target[0] != '/')
    return refuse(400, "the request target must be a path starting with '/'");
  if (target.size() > 2048) return refuse(414, "the request target is longer than 2048 bytes");
  size_t qpos = target.find('?');
  std::string_view path = target.substr(0, qpos);
  std::string_view query = qpos == std::string_view::npos ? "" : target.substr(qpos + 1);
  if (path.find('#') != std::string_view::npos) return refuse(400, "a path never holds '#'");
  // No escapes in paths at all: an encoded slash or dot would otherwise become a path.
  if (path.find('%') != std::string_view::npos || path.find('\\') != std::string_view::npos)
    return refuse(400, "encoded or backslashed characters are not accepted in a path");
  auto seg = split(path.substr(1), '/');
  for (size_t i = 0; i < seg.size(); ++i)
    if ((seg[i].empty() && !(seg.size() == 1)) || seg[i] == "." || seg[i] == "..")
      return refuse(400, "empty, '.' and '..' path segments are not accepted");
  Route r;
  if (seg.size() == 1 && seg[0].empty()) {
    if (method != "GET") return refuse(405, "the page takes GET");
    r.kind = RouteKind::page;
  } else if (seg.size() == 1 && seg[0] == "metrics") {
    if (method != "GET") return refuse(405, "/metrics takes GET");
    r.kind = RouteKind::metrics;
  } else if (seg.size() >= 3 && seg[0] == "api" && seg[1] == "v1") {
    auto m = match_api(method, std::vector<std::string_view>(seg.begin() + 2, seg.end()));
    if (!m) return m;
    r = std::move(*m);
  } else if (seg.size() == 1 && seg[0][0] != '.') {
    if (method != "GET") return refuse(405, "files take GET");
    r.kind = RouteKind::asset;
    r.asset = std::string(seg[0]);
  } else {
    return refuse(404, "no such page; open / for the dashboard or see docs/serve.md");
  }
  auto q = parse_query(query, r.kind);
  if (!q) return tl::unexpected<RouteError>(q.error());
  r.query = std::move(*q);
  return r;
}

}  // namespace aw
