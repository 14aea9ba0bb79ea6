// The agents: and repos: sections: maps from a user-chosen name to its settings.
#include <fmt/format.h>

#include "check/bounds.h"
#include "config/parse.h"
#include "config/validate.h"

namespace aw {

std::vector<Field> entries(const Value& v, std::string_view example, const ParseCtx& ctx) {
  std::vector<Field> out;
  if (!expect_map(v, fmt::format("write e.g. {}", example), ctx.issues)) return out;
  for (Field& f : map_fields(v, {}, ctx.issues))
    if (entry_ok(f, check_entry_name(f.key), example, ctx)) out.push_back(std::move(f));
  return out;
}

bool entry_ok(const Field& e, const Status& name_ok, std::string_view example,
              const ParseCtx& ctx) {
  if (!name_ok) {
    ctx.issues.add(e.key_mark, e.value.path, name_ok.error().message);
    return false;
  }
  return expect_map(e.value, fmt::format("write e.g. {}", example), ctx.issues);
}

namespace {

// Store s in out when the value check ok passed; report it otherwise.
void add_checked(const Value& v, const std::optional<std::string>& s, Status ok, std::string& out,
                 Issues& issues) {
  if (!s) return;
  if (!ok)
    issues.add(v.mark, v.path, ok.error().message);
  else
    out = *s;
}

void parse_env(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out) {
  parse_env_names(v, ctx, "write a list of variable names, e.g. env: [OPENAI_BASE_URL]", out);
}

const std::vector<std::string> kProviders = {"claude",   "codex",  "cursor",
                                             "opencode", "gemini", "command"};

void parse_agent(const Field& e, const ParseCtx& ctx, AgentConfig& a) {
  const std::vector<std::string> keys = {"command", "prompt",     "env", "provider", "inference",
                                         "profile", "lend_login", "mcp", "plugins"};
  bool has_command = false;
  std::optional<YAML::Mark> lend_at;
  for (const Field& f : map_fields(e.value, keys, ctx.issues)) {
    if (f.key == "command") {
      has_command = true;
      if (auto argv = get_command(f.value, ctx.issues)) a.command = *argv;
    } else if (f.key == "prompt") {
      if (auto i = get_enum(f.value, {"stdin", "file"}, ctx.issues))
        a.prompt = *i == 0 ? PromptMode::stdin_pipe : PromptMode::file;
    } else if (f.key == "env") {
      parse_env(f.value, ctx, a.env);
    } else if (f.key == "provider") {
      if (auto i = get_enum(f.value, kProviders, ctx.issues)) a.provider = kProviders[*i];
    } else if (f.key == "inference") {
      add_ref(f, "inference", ctx, a.inference);
    } else if (f.key == "profile") {
      add_ref(f, "profiles", ctx, a.profile);
    } else if (f.key == "lend_login") {
      lend_at = f.key_mark;
      if (auto b = get_bool(f.value, "write lend_login: true or false", ctx.issues))
        a.lend_login = *b;
    } else if (f.key == "mcp") {
      parse_mcp(f.value, ctx, a.mcp);
    } else if (f.key == "plugins") {
      parse_plugins(f.value, ctx, a.plugins);
    }
  }
  // A built-in provider knows its own command; `command` (or none) runs exactly what is written.
  if (!has_command && (a.provider.empty() || a.provider == "command"))
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'command'; add the program to run, e.g. command: \"my-agent --task\", "
                   "or name a built-in provider, e.g. provider: claude");
  bool mcp_cli = a.provider == "claude" || a.provider == "codex" || a.provider == "gemini" ||
                 a.provider == "opencode";
  if (!a.mcp.empty() && !mcp_cli)
    ctx.issues.add(e.key_mark, e.value.path + ".mcp",
                   "mcp: servers are written into the config of a built-in CLI (claude, codex, "
                   "gemini, opencode); add one as provider: or remove mcp:");
  if (!a.plugins.empty() && a.provider != "claude")
    ctx.issues.add(e.key_mark, e.value.path + ".plugins",
                   "plugins: folders are handed to Claude Code (--plugin-dir); add provider: "
                   "claude or remove plugins:");
  if (a.lend_login && a.provider != "codex")
    ctx.issues.add(*lend_at, e.value.path + ".lend_login",
                   "only the codex provider borrows a login (auth.json); add provider: codex or "
                   "remove lend_login");
}

void parse_checks(const Value& v, const ParseCtx& ctx, std::vector<Argv>& out) {
  auto items = get_list(v, "write a list of commands, e.g. checks: [\"npm test\", [make, lint]]",
                        ctx.issues);
  if (!items) return;
  for (const auto& item : *items)
    if (auto argv = get_command(item, ctx.issues)) out.push_back(*argv);
}

void parse_publish(const Value& v, const ParseCtx& ctx, PublishConfig& p) {
  const std::vector<std::string> keys = {"url", "credential", "user", "branch"};
  if (!expect_map(v, "write e.g. publish: {url: https://github.com/o/r.git, credential: GH}",
                  ctx.issues))
    return;
  bool has_url = false;
  for (const Field& f : map_fields(v, keys, ctx.issues)) {
    const Value& x = f.value;
    auto s = get_string(x, "write a string", ctx.issues);
    if (!s) continue;
    if (f.key == "url") {
      has_url = true;
      add_checked(x, s, check_url(*s), p.url, ctx.issues);
    } else if (f.key == "credential") {
      add_checked(x, s, check_env_name(*s), p.credential, ctx.issues);
    } else if (f.key == "user") {
      p.user = *s;
    } else if (f.key == "branch") {
      add_checked(x, s, check_branch(*s), p.branch, ctx.issues);
    }
  }
  if (!has_url) ctx.issues.add(v.mark, v.path, "missing 'url'; name the remote to push to");
}

void parse_repo(const Field& e, const ParseCtx& ctx, RepoConfig& r) {
  std::vector<std::string> keys = {
      "path",    "url",     "base", "setup", "checks",         "image",    "bounds",
      "publish", "profile", "loop", "when",  "agent_settings", "follow_up", "follow_ci"};
  keys.insert(keys.end(), kForgeRepoKeys.begin(), kForgeRepoKeys.end());
  std::optional<YAML::Mark> path_at, url_at, github_at, gitlab_at, publish_at;
  std::vector<Field> fields = map_fields(e.value, keys, ctx.issues);
  std::vector<const Field*> forge_keys;  // besides github: and gitlab: themselves
  for (const Field& f : fields) {
    const Value& v = f.value;
    if (f.key == "github") github_at = f.key_mark;
    if (f.key == "gitlab") gitlab_at = f.key_mark;
    if (parse_forge_repo_field(f, e, ctx, r.forge)) {
      if (f.key != "github" && f.key != "gitlab") forge_keys.push_back(&f);
      continue;
    }
    if (parse_loop_field(f, ctx, r)) continue;
    if (f.key == "path") {
      path_at = f.key_mark;
      if (auto p = get_path(v, ctx, "write a folder, e.g. path: ~/src/project")) r.path = *p;
    } else if (f.key == "url") {
      url_at = f.key_mark;
      auto s = get_string(v, "write e.g. url: https://github.com/owner/repo.git", ctx.issues);
      add_checked(v, s, s ? check_url(*s) : Status{}, r.url, ctx.issues);
    } else if (f.key == "base") {
      auto s = get_string(v, "write a branch name, e.g. base: main", ctx.issues);
      add_checked(v, s, s ? check_branch(*s) : Status{}, r.base, ctx.issues);
    } else if (f.key == "setup") {
      if (auto argv = get_command(v, ctx.issues)) r.setup = *argv;
    } else if (f.key == "checks") {
      parse_checks(v, ctx, r.checks);
    } else if (f.key == "image") {
      auto s = get_string(v, "write an image, e.g. image: debian:bookworm", ctx.issues);
      add_checked(v, s, s ? check_image(*s) : Status{}, r.image, ctx.issues);
    } else if (f.key == "publish") {
      publish_at = f.key_mark;
      parse_publish(v, ctx, r.publish);
    } else if (f.key == "profile") {
      add_ref(f, "profiles", ctx, r.profile);
    } else if (f.key == "agent_settings") {
      if (auto i = get_enum(v, {"awaywork", "clone"}, ctx.issues)) r.clone_agent_settings = *i == 1;
    } else if (f.key == "bounds") {
      // The output check owns the bounds schema; its messages already carry file:line:col.
      auto b = bounds_from_yaml(v.node, ctx.issues.file(), v.path);
      if (b)
        r.bounds = *b;
      else
        ctx.issues.add_formatted(b.error().message);
    }
  }
  int sources = !!path_at + !!url_at + !!github_at + !!gitlab_at;
  if (sources > 1)
    ctx.issues.add(url_at      ? *url_at
                   : github_at ? *github_at
                               : *gitlab_at,
                   e.value.path,
                   "has more than one of 'path', 'url', 'github' and 'gitlab'; keep exactly one "
                   "(path: for a local repository, url: for a remote one, github: OWNER/REPO or "
                   "gitlab: GROUP/PROJECT for a forge one)");
  else if (sources == 0)
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'path', 'url', 'github' or 'gitlab'; add path: ~/src/project for a "
                   "local repository, url: https://... for a remote one, github: OWNER/REPO or "
                   "gitlab: GROUP/PROJECT for a forge one");
  if ((github_at || gitlab_at) && publish_at)
    ctx.issues.add(*publish_at, e.value.path,
                   fmt::format("a {}: repository publishes to its forge; remove publish:",
                               github_at ? "github" : "gitlab"));
  if (!github_at && !gitlab_at)
    for (const Field* f : forge_keys)
      ctx.issues.add(f->key_mark, f->value.path,
                     "applies to forge repositories only; add github: OWNER/REPO (or gitlab: "
                     "GROUP/PROJECT) or remove it");
}

}  // namespace

void parse_agents(const Value& v, const ParseCtx& ctx, std::map<std::string, AgentConfig>& out) {
  parse_named(v, "agents: {claude: {command: \"claude -p\"}}", ctx, out, parse_agent);
}

void parse_repos(const Value& v, const ParseCtx& ctx, std::map<std::string, RepoConfig>& out) {
  parse_named(v, "repos: {web: {path: ~/src/web}}", ctx, out, parse_repo);
}

}  // namespace aw
