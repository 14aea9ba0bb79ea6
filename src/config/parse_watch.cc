// The watch: section (docs/watch.md): the repositories `awaywork watch` polls, their triggers,
// limits, window and failure policy. Keys a repository may set default to the watch: level.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "config/parse.h"
#include "config/suggest.h"

namespace aw {

// "90", 90, "90s", "30m", "2h", "1d": seconds (parse.h).
std::optional<int64_t> get_duration(const Value& v, int64_t max, std::string_view example,
                                    Issues& issues) {
  std::string hint = fmt::format("write seconds or a duration, e.g. {}", example);
  auto s = get_string(v, hint, issues);
  if (!s) return std::nullopt;
  size_t digits = s->find_first_not_of("0123456789");
  std::string unit = digits == std::string::npos ? "" : s->substr(digits);
  const std::vector<std::pair<std::string, int64_t>> units = {
      {"", 1}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  auto u = std::find_if(units.begin(), units.end(), [&](auto& p) { return p.first == unit; });
  if (digits == 0 || s->empty() || digits > 9 || u == units.end()) {
    issues.add(v.mark, v.path, fmt::format("'{}' is not a duration; {}", *s, hint));
    return std::nullopt;
  }
  int64_t n = std::stoll(s->substr(0, digits)) * u->second;
  if (n < 1 || n > max) {
    issues.add(v.mark, v.path, fmt::format("{} is out of range (1 s to {} s); {}", *s, max, hint));
    return std::nullopt;
  }
  return n;
}

std::string actions_login_of(const WatchRepoConfig& w) {
  if (w.actions_login) return *w.actions_login;
  return w.on_actions ? "github-actions[bot]" : "";
}

namespace {

// The keys a repository entry may set; the same keys at watch: level are their defaults.
const std::vector<std::string> kRepoKeys = {"label",    "assignee",     "command",      "max_units",
                                            "window",   "stop_after",   "on_failure",   "run_on",
                                            "workflow", "workflow_ref", "actions_login"};
const std::vector<std::string> kTopOnly = {
    "repos", "sources", "poll_seconds", "machine_max_units", "claim_ttl", "shutdown_grace"};

// HH:MM or HH:MM:SS as seconds after midnight.
std::optional<int> time_of_day(const std::string& s) {
  int h = 0, m = 0, sec = 0, n = 0;
  bool ok = (std::sscanf(s.c_str(), "%2d:%2d:%2d%n", &h, &m, &sec, &n) == 3 &&
             n == static_cast<int>(s.size()) && s.size() == 8) ||
            (std::sscanf(s.c_str(), "%2d:%2d%n", &h, &m, &n) == 2 &&
             n == static_cast<int>(s.size()) && s.size() == 5 && (sec = 0, true));
  if (!ok || h > 23 || m > 59 || sec > 59 || h < 0 || m < 0 || sec < 0) return std::nullopt;
  return h * 3600 + m * 60 + sec;
}

void parse_window(const Value& v, Issues& issues, WatchWindow& w) {
  constexpr std::string_view hint =
      "write local times START-END, e.g. window: \"22:00-07:00\" (it may cross midnight)";
  auto s = get_string(v, hint, issues);
  if (!s) return;
  size_t dash = s->find('-');
  auto start = dash == std::string::npos ? std::nullopt : time_of_day(s->substr(0, dash));
  auto end = dash == std::string::npos ? std::nullopt : time_of_day(s->substr(dash + 1));
  if (!start || !end)
    issues.add(v.mark, v.path, fmt::format("'{}' is not a window; {}", *s, hint));
  else if (*start == *end)
    issues.add(v.mark, v.path,
               fmt::format("'{}' starts and ends at the same time; leave window: out to watch "
                           "at all hours",
                           *s));
  else
    w = WatchWindow{*start, *end};
}

void parse_failure(const Value& v, Issues& issues, WatchFailure& f) {
  constexpr std::string_view hint =
      "write on_failure: comment, on_failure: {label: NAME} or on_failure: {retry: N}";
  if (v.node.IsScalar()) {
    if (auto i = get_enum(v, {"comment"}, issues)) f = WatchFailure{};
    return;
  }
  if (!expect_map(v, hint, issues)) return;
  for (const Field& k : map_fields(v, {"label", "retry"}, issues)) {
    if (k.key == "label") {
      if (auto s = get_string(k.value, hint, issues)) {
        if (s->empty() || s->size() > 50)
          issues.add(k.value.mark, k.value.path, "a label has 1 to 50 characters");
        else
          f.label = *s;
      }
    } else if (auto n = get_int(k.value, 0, 10, "write retry: N (0 to 10)", issues)) {
      f.retry = static_cast<int>(*n);
    }
  }
}

// One key a repository entry (or the watch: defaults) may set.
void parse_repo_key(const Field& f, Issues& issues, WatchRepoConfig& r) {
  const Value& v = f.value;
  if (f.key == "label") {
    if (auto s = get_string(v, "write the trigger label, e.g. label: awaywork", issues))
      r.label = *s;
  } else if (f.key == "assignee") {
    if (auto s = get_string(v, "write the login an issue is assigned to, e.g. aw-bot", issues))
      r.assignee = *s;
  } else if (f.key == "command") {
    auto s = get_string(v, "write the command a comment starts with, e.g. /awaywork", issues);
    if (s && !s->empty() && (*s)[0] != '/')
      issues.add(v.mark, v.path, fmt::format("'{}' must start with /, e.g. /awaywork", *s));
    else if (s)
      r.command = *s;
  } else if (f.key == "max_units") {
    if (auto n = get_int(v, 1, 64, "write how many units at once, e.g. max_units: 1", issues))
      r.max_units = static_cast<int>(*n);
  } else if (f.key == "window") {
    parse_window(v, issues, r.window);
  } else if (f.key == "stop_after") {
    auto s = get_string(v, "write a date, e.g. stop_after: 2026-12-31", issues);
    if (!s) return;
    if (auto t = parse_instant(*s))
      r.stop_after = *t;
    else
      issues.add(v.mark, v.path,
                 fmt::format("'{}' is not a date; write YYYY-MM-DD (that day included, UTC) or "
                             "YYYY-MM-DDTHH:MM:SSZ",
                             *s));
  } else if (f.key == "on_failure") {
    parse_failure(v, issues, r.on_failure);
  } else if (f.key == "run_on") {
    if (auto i = get_enum(v, {"local", "actions"}, issues)) r.on_actions = *i == 1;
  } else if (f.key == "workflow") {
    auto s = get_string(v, "write the workflow's file name, e.g. workflow: awaywork.yml", issues);
    if (s && (s->empty() || s->find('/') != std::string::npos ||
              !(s->ends_with(".yml") || s->ends_with(".yaml"))))
      issues.add(v.mark, v.path,
                 fmt::format("'{}' is not a workflow file name; write the name of a file in "
                             ".github/workflows/, e.g. workflow: awaywork.yml",
                             *s));
    else if (s)
      r.workflow = *s;
  } else if (f.key == "actions_login") {
    // An installation's login always ends in [bot]; a person's login here would make their pull
    // requests candidates for awaywork's own (still checked against the dispatched runs).
    constexpr std::string_view hint =
        "write the login the workflow's token publishes under, e.g. actions_login: "
        "github-actions[bot] (\"\" turns it off)";
    auto s = get_string(v, hint, issues);
    if (s && !s->empty() && (!s->ends_with("[bot]") || s->size() <= 5))
      issues.add(v.mark, v.path,
                 fmt::format("'{}' is not a GitHub App's login (NAME[bot]); {}", *s, hint));
    else if (s)
      r.actions_login = *s;
  } else if (f.key == "workflow_ref") {
    if (auto s = get_string(v, "write the branch to dispatch on, e.g. workflow_ref: main", issues))
      r.workflow_ref = *s;
  }
}

void parse_repos_list(const Value& v, const ParseCtx& ctx, const WatchRepoConfig& defaults,
                      Config& cfg) {
  constexpr std::string_view hint =
      "write a map of repos: names, e.g. repos: {web: {}, api: {label: ai}}";
  if (!expect_map(v, hint, ctx.issues)) return;
  std::vector<std::string> forge_repos;
  for (const auto& [n, r] : cfg.repos)
    if (!r.forge.github.empty() || !r.forge.gitlab.empty()) forge_repos.push_back(n);
  for (const Field& e : map_fields(v, {}, ctx.issues)) {
    WatchRepoConfig r = defaults;
    r.repo = e.key;
    auto it = cfg.repos.find(e.key);
    bool gitlab = it != cfg.repos.end() && !it->second.forge.gitlab.empty();
    if (it == cfg.repos.end() || (it->second.forge.github.empty() && !gitlab)) {
      std::string fix = did_you_mean(e.key, forge_repos);
      ctx.issues.add(
          e.key_mark, e.value.path,
          fmt::format("'{}' is not a forge repository under repos: (one with github: OWNER/"
                      "REPO or gitlab: GROUP/PROJECT){}",
                      e.key,
                      !fix.empty() ? fix
                      : forge_repos.empty()
                          ? std::string("; add one under repos:")
                          : fmt::format("; defined: {}", fmt::join(forge_repos, ", "))));
      continue;
    }
    if (!e.value.node.IsNull() &&
        expect_map(e.value, "write the repository's keys, e.g. web: {label: ai}", ctx.issues))
      for (const Field& f : map_fields(e.value, kRepoKeys, ctx.issues))
        parse_repo_key(f, ctx.issues, r);
    // A GitLab project's units run on this machine: run_on: actions is GitHub Actions' dispatch.
    if (gitlab && r.on_actions)
      ctx.issues.add(e.key_mark, e.value.path,
                     fmt::format("'{}' is a GitLab project: run_on: actions dispatches a GitHub "
                                 "Actions workflow; remove run_on (its units run here)",
                                 e.key));
    if (r.label.empty() && r.assignee.empty() && r.command.empty())
      ctx.issues.add(e.key_mark, e.value.path,
                     "no trigger left (label, assignee and command are all empty); set one");
    cfg.watch.repos.push_back(std::move(r));
  }
}

// sources: [{source: PLUGIN, repo: NAME, max_units: N}]: each a plugins: entry of kind source
// (parsed before watch:) and the repository its tasks run on. Any repos: entry will do, a local
// one too: the tasks come from the plugin, not from a forge, and the entry's trust: caps what the
// plugin says of their authors (docs/plugins.md#source-source).
void parse_sources_list(const Value& v, const ParseCtx& ctx, Config& cfg) {
  constexpr std::string_view hint =
      "write a list of task sources, e.g. sources: [{source: tracker, repo: web}]";
  auto entries = get_list(v, hint, ctx.issues);
  if (!entries) return;
  std::vector<std::string> sources, repos;
  for (const auto& [n, p] : cfg.plugins.plugins)
    if (p.kind == PluginKind::source) sources.push_back(n);
  for (const auto& [n, r] : cfg.repos) repos.push_back(n);
  for (const Value& e : *entries) {
    if (!expect_map(e, hint, ctx.issues)) continue;
    WatchSourceConfig s;
    s.line = e.mark.line + 1;
    bool has_source = false, has_repo = false;
    for (const Field& f : map_fields(e, {"source", "repo", "max_units"}, ctx.issues)) {
      if (f.key == "source") {
        auto name = get_string(f.value, "write a plugin's name, e.g. source: tracker", ctx.issues);
        if (!name) continue;
        has_source = true;
        auto it = cfg.plugins.plugins.find(*name);
        if (it == cfg.plugins.plugins.end() || it->second.kind != PluginKind::source) {
          std::string fix = did_you_mean(*name, sources);
          ctx.issues.add(
              f.value.mark, f.value.path,
              fmt::format("'{}' is not a plugin of kind source under plugins:{}", *name,
                          it != cfg.plugins.plugins.end()
                              ? fmt::format(" (it is a {}); write kind: source in its entry",
                                            to_string(it->second.kind))
                          : !fix.empty() ? fix
                          : sources.empty()
                              ? std::string("; declare one, e.g. plugins: {tracker: {kind: "
                                            "source, command: [/opt/tracker/tracker-source]}}")
                              : fmt::format("; declared: {}", fmt::join(sources, ", "))));
          continue;
        }
        s.plugin = *name;
      } else if (f.key == "repo") {
        auto name = get_string(f.value, "write a repos: name, e.g. repo: web", ctx.issues);
        if (!name) continue;
        has_repo = true;
        if (!cfg.repos.count(*name)) {
          std::string fix = did_you_mean(*name, repos);
          ctx.issues.add(
              f.value.mark, f.value.path,
              fmt::format("'{}' is not a repository under repos:{}", *name,
                          !fix.empty()    ? fix
                          : repos.empty() ? std::string("; add one under repos:")
                                          : fmt::format("; defined: {}", fmt::join(repos, ", "))));
          continue;
        }
        s.repo = *name;
      } else if (auto n = get_int(f.value, 1, 64, "write how many units at once, e.g. max_units: 1",
                                  ctx.issues)) {
        s.max_units = static_cast<int>(*n);
      }
    }
    if (!has_source)
      ctx.issues.add(e.mark, e.path,
                     "missing 'source'; name a plugin of kind source, e.g. source: tracker");
    if (!has_repo)
      ctx.issues.add(e.mark, e.path,
                     "missing 'repo'; name the repos: entry its tasks run on, e.g. repo: web");
    for (const WatchSourceConfig& o : cfg.watch.sources)
      if (!s.plugin.empty() && o.plugin == s.plugin && o.repo == s.repo)
        ctx.issues.add(
            e.mark, e.path,
            fmt::format("source {} on repo {} is listed twice; remove one", s.plugin, s.repo));
    if (!s.plugin.empty() && !s.repo.empty()) cfg.watch.sources.push_back(std::move(s));
  }
}

}  // namespace

void parse_watch(const Value& v, const ParseCtx& ctx, Config& cfg) {
  if (!expect_map(v, "write e.g. watch: {repos: {web: {}}, poll_seconds: 60}", ctx.issues)) return;
  std::vector<std::string> keys = kRepoKeys;
  keys.insert(keys.end(), kTopOnly.begin(), kTopOnly.end());
  WatchRepoConfig defaults;
  std::optional<Value> repos, sources;
  WatchConfig& w = cfg.watch;
  for (const Field& f : map_fields(v, keys, ctx.issues)) {
    const Value& x = f.value;
    if (f.key == "repos") {
      repos = x;
    } else if (f.key == "sources") {
      sources = x;
    } else if (f.key == "poll_seconds") {
      if (auto n = get_int(x, 5, 86400, "write seconds, e.g. poll_seconds: 60", ctx.issues))
        w.poll_seconds = static_cast<int>(*n);
    } else if (f.key == "machine_max_units") {
      if (auto n = get_int(x, 1, 256, "write how many units at once, e.g. machine_max_units: 2",
                           ctx.issues))
        w.max_units = static_cast<int>(*n);
    } else if (f.key == "claim_ttl") {
      if (auto n = get_duration(x, 30 * 86400, "claim_ttl: 6h", ctx.issues)) w.claim_ttl = *n;
    } else if (f.key == "shutdown_grace") {
      if (auto n = get_duration(x, 86400, "shutdown_grace: 5m", ctx.issues)) w.shutdown_grace = *n;
    } else {
      parse_repo_key(f, ctx.issues, defaults);
    }
  }
  if (sources) parse_sources_list(*sources, ctx, cfg);
  if (!repos && !sources) {
    ctx.issues.add(v.mark, v.path,
                   "missing 'repos'; name the forge repositories to watch, e.g. repos: {web: {}} "
                   "(or task source plugins: sources: [{source: tracker, repo: web}])");
    return;
  }
  if (repos) parse_repos_list(*repos, ctx, defaults, cfg);
}

}  // namespace aw
