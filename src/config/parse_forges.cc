// The forges: section and the forge keys of a repo entry (github:, forge:, trust:, ...).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <optional>

#include "base/utc.h"
#include "config/parse.h"
#include "config/validate.h"

namespace aw {

const std::vector<std::string> kForgeRepoKeys = {
    "github",     "gitlab",        "forge",           "task",   "trust",
    "stop_after", "branch_prefix", "closing_keyword", "resume", "agent_forge"};

namespace {

const std::vector<std::string> kRoles = {"admin", "maintain", "write", "triage", "read"};

// GitHub's login rule: letters, digits and single hyphens, not at either end, at most 39.
bool valid_login(std::string_view s) {
  if (s.empty() || s.size() > 39 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
  return s.find("--") == std::string_view::npos;
}

// OWNER/REPO: a login, a slash, a repository name (letters, digits, '.', '_', '-').
Status check_owner_repo(const std::string& s) {
  size_t slash = s.find('/');
  std::string_view repo = slash == std::string::npos ? "" : std::string_view(s).substr(slash + 1);
  bool ok = slash != std::string::npos && valid_login(std::string_view(s).substr(0, slash)) &&
            !repo.empty() && repo.size() <= 100 && repo != "." && repo != "..";
  for (char c : repo)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  if (!ok) return fail("'{}' is not OWNER/REPO; write e.g. github: octo-org/web", s);
  return {};
}

// GitLab's username rule: letters, digits, '_', '-' and '.', starting with a letter, a digit or
// '_', not ending in '.', ".git" or ".atom"; at most 255.
bool valid_gitlab_username(std::string_view s) {
  if (s.empty() || s.size() > 255 || s.front() == '-' || s.front() == '.' || s.back() == '.' ||
      s.ends_with(".git") || s.ends_with(".atom"))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return false;
  return true;
}

// The users GitLab makes for project and group access tokens: project_<id>_bot_<hex>,
// group_<id>_bot_<hex> (older ones project_<id>_bot, project_<id>_bot<n>); GitLab's JSON says
// `bot: true` of them, and forge/gitlab/model.cc reads the same names as bots.
bool gitlab_token_bot_name(std::string_view u) {
  for (std::string_view prefix : {"project_", "group_"}) {
    if (!u.starts_with(prefix)) continue;
    size_t i = prefix.size(), digits = 0;
    while (i < u.size() && std::isdigit(static_cast<unsigned char>(u[i]))) ++i, ++digits;
    if (digits > 0 && u.substr(i).starts_with("_bot")) return true;
  }
  return false;
}

// A trust list's logins: each kept, or reported where it stands with the problem `problem` names
// (nullopt keeps it). Both forges' lists share this; only their naming rules differ.
void parse_login_list(
    const Value& v, std::string_view hint, const ParseCtx& ctx, std::vector<std::string>& out,
    const std::function<std::optional<std::string>(const std::string&)>& problem) {
  auto items = get_strings(v, hint, ctx.issues);
  if (!items) return;
  auto values = get_list(v, hint, ctx.issues);
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string& login = (*items)[i];
    const Value& at = (*values)[i];
    if (std::optional<std::string> why = problem(login))
      ctx.issues.add(at.mark, at.path, *why);
    else
      out.push_back(login);
  }
}

// A GitLab repository's trust lists: GitLab usernames, and bots by their own names (GitLab's do
// not end in [bot]: a token's user is project_42_bot_..., and GitLab's JSON marks it `bot`).
void parse_gitlab_logins(const Value& v, bool bots, const ParseCtx& ctx,
                         std::vector<std::string>& out) {
  std::string_view hint = bots ? "write a list of GitLab bot usernames, e.g. bots: "
                                 "[project_42_bot_5f3a2c]"
                               : "write a list of GitLab usernames, e.g. users: [jane.doe]";
  parse_login_list(v, hint, ctx, out, [&](const std::string& login) -> std::optional<std::string> {
    if (!valid_gitlab_username(login))
      return fmt::format("'{}' is not a GitLab username; {}", login, hint);
    if (!bots && gitlab_token_bot_name(login))
      return fmt::format("'{}' is an access token's bot user; list it under bots:", login);
    return std::nullopt;
  });
}

void parse_logins(const Value& v, bool bots, const ParseCtx& ctx, std::vector<std::string>& out) {
  std::string_view hint = bots ? "write a list of bot logins, e.g. bots: [renovate[bot]]"
                               : "write a list of logins, e.g. users: [octocat]";
  parse_login_list(v, hint, ctx, out, [&](const std::string& login) -> std::optional<std::string> {
    bool is_bot = login.ends_with("[bot]");
    std::string_view name = is_bot ? std::string_view(login).substr(0, login.size() - 5) : login;
    if (login == "github-actions[bot]")
      return "github-actions[bot] is never admitted: what a workflow posts would start units that "
             "post again (a loop); remove it";
    if (!valid_login(name)) return fmt::format("'{}' is not a GitHub login; {}", login, hint);
    if (bots && !is_bot)
      return fmt::format("'{}' is not a bot login (NAME[bot]); list people under users:", login);
    if (!bots && is_bot) return fmt::format("'{}' is a bot; list bots under bots:", login);
    return std::nullopt;
  });
}

// gitlab: the repository is a GitLab project (its names follow GitLab's rules).
void parse_trust(const Value& v, const ParseCtx& ctx, TrustConfig& t, bool gitlab) {
  if (!expect_map(v, "write e.g. trust: {roles: [admin, maintain, write], users: [octocat]}",
                  ctx.issues))
    return;
  for (const Field& f : map_fields(v, {"roles", "users", "bots"}, ctx.issues)) {
    if (f.key == "users" || f.key == "bots") {
      bool bots = f.key == "bots";
      if (gitlab)
        parse_gitlab_logins(f.value, bots, ctx, bots ? t.bots : t.users);
      else
        parse_logins(f.value, bots, ctx, bots ? t.bots : t.users);
    } else if (auto items =
                   get_list(f.value, "write e.g. roles: [admin, maintain, write]", ctx.issues)) {
      t.roles.clear();
      for (const Value& item : *items)
        if (auto i = get_enum(item, kRoles, ctx.issues)) t.roles.push_back(kRoles[*i]);
    }
  }
}

// GitLab's project path: a namespace (group, subgroups: issue 29 allows nested groups) and the
// project, each a path segment of letters, digits, '_', '-' and '.', not starting with '-' or
// '.' and not ending in ".git" or ".atom" (GitLab's own path rule).
Status check_gitlab_project(const std::string& s) {
  constexpr std::string_view hint = "write e.g. gitlab: group/subgroup/project";
  size_t segments = 0;
  size_t start = 0;
  bool ok = !s.empty() && s.size() <= 255;
  while (ok && start <= s.size()) {
    size_t slash = s.find('/', start);
    std::string_view seg = std::string_view(s).substr(
        start, slash == std::string::npos ? std::string::npos : slash - start);
    ok = !seg.empty() && seg.front() != '-' && seg.front() != '.' && !seg.ends_with(".git") &&
         !seg.ends_with(".atom");
    for (char c : seg)
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
    ++segments;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (!ok || segments < 2) return fail("'{}' is not a GitLab project path; {}", s, hint);
  return {};
}

void parse_forge(const Field& e, const ParseCtx& ctx, ForgeConfig& c) {
  const std::vector<std::string> keys = {"kind", "api_url", "credential", "ca_file"};
  // The api_url default and the owner's-login credential word depend on the kind, which may come
  // after them in the map: both are settled once the entry is read.
  std::optional<Value> api_url, credential;
  for (const Field& f : map_fields(e.value, keys, ctx.issues)) {
    const Value& v = f.value;
    if (f.key == "kind") {
      if (auto i = get_enum(v, {"github", "gitlab"}, ctx.issues))
        c.kind = *i == 0 ? "github" : "gitlab";
    } else if (f.key == "api_url") {
      api_url = v;
    } else if (f.key == "credential") {
      credential = v;
    } else if (f.key == "ca_file") {
      if (auto p = get_path(v, ctx, "write a PEM file, e.g. ca_file: ~/corp-ca.pem"))
        c.ca_file = *p;
    }
  }
  bool gitlab = c.kind == "gitlab";
  if (gitlab) c.api_url = std::string(kGitlabApiUrl);
  if (api_url) {
    std::string_view hint =
        gitlab ? "write e.g. https://gitlab.com/api/v4, or https://HOST/api/v4 for a "
                 "self-managed GitLab"
               : "write e.g. https://api.github.com, or https://HOST/api/v3 for GitHub "
                 "Enterprise Server";
    if (auto s = get_string(*api_url, hint, ctx.issues)) {
      std::string url = *s;
      while (url.size() > 1 && url.back() == '/') url.pop_back();
      if (auto ok = check_api_url(url, hint); !ok)
        ctx.issues.add(api_url->mark, api_url->path, ok.error().message);
      else
        c.api_url = url;
    }
  }
  // The owner's own CLI login: `gh auth token` for GitHub, `glab`'s stored token for GitLab.
  std::string_view login = gitlab ? "glab" : "gh";
  std::string_view example = gitlab ? "GITLAB_TOKEN" : "GH_TOKEN";
  if (credential) {
    auto s =
        get_string(*credential,
                   fmt::format("write a secret's name, e.g. credential: {}, or {}", example, login),
                   ctx.issues);
    if (s) {
      Status ok = *s == login ? Status{} : check_env_name(*s);
      if (ok && (*s == "gh" || *s == "glab") && *s != login)
        ok = fail(
            "'{}' is the {} login, and this forge is kind {}; write credential: {} or a "
            "secret's name",
            *s, *s == "gh" ? "GitHub" : "GitLab", c.kind, login);
      if (!ok)
        ctx.issues.add(credential->mark, credential->path, ok.error().message);
      else
        c.credential = *s;
    }
  } else {
    ctx.issues.add(e.key_mark, e.value.path,
                   fmt::format("missing 'credential'; name the secret holding the token, e.g. "
                               "credential: {0} (stored with `awaywork secret set {0}`), or "
                               "credential: {1} to use your `{1}` login",
                               example, login));
  }
}

}  // namespace

// 2026-12-31 (the whole day counts, in UTC) or 2026-12-31T18:00:00Z.
std::optional<int64_t> parse_instant(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 23, mi = 59, sec = 59;
  char z = 0;
  int n = 0;
  if (s.size() == 10 && std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) == 3 && n == 10) {
  } else if (s.size() == 20 &&
             std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &y, &mo, &d, &h, &mi, &sec, &z,
                         &n) == 7 &&
             n == 20 && z == 'Z') {
  } else {
    return std::nullopt;
  }
  return utc_seconds(y, mo, d, h, mi, sec);
}

void parse_forges(const Value& v, const ParseCtx& ctx, std::map<std::string, ForgeConfig>& out) {
  parse_named(v, "forges: {github: {credential: GH_TOKEN}}", ctx, out, parse_forge);
}

bool parse_forge_repo_field(const Field& f, const Field& entry, const ParseCtx& ctx,
                            ForgeRepoConfig& r) {
  const Value& v = f.value;
  if (f.key == "github" || f.key == "gitlab") {
    bool gitlab = f.key == "gitlab";
    auto s = get_string(
        v, gitlab ? "write e.g. gitlab: group/subgroup/project" : "write e.g. github: octo-org/web",
        ctx.issues);
    if (s) {
      if (auto ok = gitlab ? check_gitlab_project(*s) : check_owner_repo(*s); !ok)
        ctx.issues.add(v.mark, v.path, ok.error().message);
      else
        (gitlab ? r.gitlab : r.github) = *s;
    }
    // Which forge is settled once the whole file is read (forges: may come later), and its kind
    // checked against this key then.
    // section "forge:" marks an entry that names its forge (only the kind is checked then).
    ctx.implied_forges.push_back(NameRef{entry.value.node["forge"] ? "forge:" : "forges", entry.key,
                                         entry.key_mark, entry.value.path});
  } else if (f.key == "forge") {
    add_ref(f, "forges", ctx, r.forge);
  } else if (f.key == "task") {
    if (auto s = get_string(v, "write the task text put before the issue", ctx.issues)) r.task = *s;
  } else if (f.key == "trust") {
    // The entry's own keys say its kind, whichever order they come in.
    bool gitlab = entry.value.node["gitlab"] && !entry.value.node["github"];
    parse_trust(v, ctx, r.trust, gitlab);
  } else if (f.key == "stop_after") {
    auto s = get_string(v, "write a date, e.g. stop_after: 2026-12-31", ctx.issues);
    if (!s) return true;
    if (auto t = parse_instant(*s))
      r.stop_after = *t;
    else
      ctx.issues.add(v.mark, v.path,
                     fmt::format("'{}' is not a date; write YYYY-MM-DD (that day included, UTC) "
                                 "or YYYY-MM-DDTHH:MM:SSZ",
                                 *s));
  } else if (f.key == "branch_prefix") {
    auto s = get_string(v, "write e.g. branch_prefix: awaywork/", ctx.issues);
    if (!s) return true;
    if (auto ok = check_branch(*s + "x"); !ok || s->empty())
      ctx.issues.add(v.mark, v.path,
                     fmt::format("'{}' cannot start a branch name; write e.g. awaywork/", *s));
    else
      r.branch_prefix = *s;
  } else if (f.key == "closing_keyword") {
    if (auto b = get_bool(v, "write closing_keyword: true or false", ctx.issues))
      r.closing_keyword = *b;
  } else if (f.key == "resume") {
    if (auto b = get_bool(v, "write resume: true or false", ctx.issues)) r.resume = *b;
  } else if (f.key == "agent_forge") {
    if (auto i = get_enum(v, {"off", "read"}, ctx.issues)) {
      r.agent_forge_read = *i == 1;
      // Checked against the forge and the sandbox once the whole file is read.
      if (r.agent_forge_read)
        ctx.implied_forges.push_back(NameRef{"agent_forge", entry.key, v.mark, v.path});
    }
  } else {
    return false;
  }
  return true;
}

void resolve_implied_forges(const ParseCtx& ctx, Config& cfg) {
  for (const NameRef& r : ctx.implied_forges) {
    if (r.section == "agent_forge") continue;  // check_agent_forges's
    ForgeRepoConfig& repo = cfg.repos[r.name].forge;
    bool gitlab = repo.github.empty() && !repo.gitlab.empty();
    if (r.section == "forges" && repo.forge.empty()) {
      if (cfg.forges.size() != 1) {
        std::vector<std::string> names;
        for (const auto& [n, _] : cfg.forges) names.push_back(n);
        ctx.issues.add(
            r.mark, r.path,
            names.empty()
                ? fmt::format("a {0}: repository needs a forge; define one, e.g. forges: {{{0}: "
                              "{{{1}credential: {2}}}}}",
                              gitlab ? "gitlab" : "github", gitlab ? "kind: gitlab, " : "",
                              gitlab ? "GITLAB_TOKEN" : "GH_TOKEN")
                : fmt::format("several forges are defined ({}); name one with forge:",
                              fmt::join(names, ", ")));
        continue;
      }
      repo.forge = cfg.forges.begin()->first;
    }
    // A named forge that does not exist is reported by check_refs.
    auto it = cfg.forges.find(repo.forge);
    if (it == cfg.forges.end() || (repo.github.empty() && repo.gitlab.empty())) continue;
    if ((it->second.kind == "gitlab") != gitlab)
      ctx.issues.add(
          r.mark, r.path,
          fmt::format("{}: names a {} project, but forge '{}' is kind {}; write {}: "
                      "for it or name a forge of kind {}",
                      gitlab ? "gitlab" : "github", gitlab ? "GitLab" : "GitHub", repo.forge,
                      it->second.kind, gitlab ? "github" : "gitlab", gitlab ? "gitlab" : "github"));
  }
}

void check_agent_forges(const ParseCtx& ctx, const Config& cfg) {
  for (const NameRef& r : ctx.implied_forges) {
    if (r.section != "agent_forge") continue;
    auto repo = cfg.repos.find(r.name);
    if (repo == cfg.repos.end() || repo->second.forge.path().empty()) continue;  // reported
    auto forge = cfg.forges.find(repo->second.forge.forge);
    if (forge == cfg.forges.end()) continue;  // reported by check_refs / resolve_implied_forges
    auto where = api_host_of(forge->second.api_url);
    if (!where) {
      ctx.issues.add(
          r.mark, r.path,
          fmt::format("forge '{}' has api_url {}: the egress proxy reaches a forge's API for the "
                      "agent over verified https:// only, at a host name; use an https:// "
                      "api_url or remove agent_forge",
                      forge->first, forge->second.api_url));
      continue;
    }
    const std::string& host = where->first;
    if (cfg.sandbox.network != Network::allowlist) {
      ctx.issues.add(r.mark, r.path,
                     fmt::format("the forge's credential is added by the egress proxy, which runs "
                                 "only with sandbox: {{network: allowlist, allow: [{}]}}",
                                 host));
      continue;
    }
    bool allowed = false;
    for (const auto& a : cfg.sandbox.allow)
      allowed = allowed || a == host ||
                (a.starts_with("*.") && host.size() > a.size() - 1 && host.ends_with(a.substr(1)));
    if (!allowed)
      ctx.issues.add(r.mark, r.path,
                     fmt::format("the forge's API host '{}' is not in sandbox.allow, so no request "
                                 "reaches it; add it: sandbox: {{allow: [{}]}}",
                                 host, host));
  }
}

}  // namespace aw
