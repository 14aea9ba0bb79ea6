// An agent's tools that its CLI loads: `mcp:` servers (started by the CLI inside the unit's
// isolation, or by awaywork outside it with `run: outside`) and `plugins:` folders (mounted
// read-only). docs/agents.md.
#include <fmt/format.h>

#include "config/parse.h"
#include "config/parse_grants.h"
#include "config/validate.h"

namespace aw {

void parse_env_names(const Value& v, const ParseCtx& ctx, std::string_view hint,
                     std::vector<std::string>& out) {
  auto items = get_list(v, hint, ctx.issues);
  if (!items) return;
  for (const auto& item : *items)
    if (auto s = get_checked(item, hint, check_env_name, ctx.issues)) out.push_back(*s);
}

namespace {

void parse_server(const Field& e, const ParseCtx& ctx, McpServerConfig& s) {
  bool has_command = false;
  const Field* net = nullptr;
  const Field* read = nullptr;
  std::vector<Field> fields =
      map_fields(e.value, {"command", "env", "secrets", "run", "net", "read"}, ctx.issues);
  for (const Field& f : fields) {
    if (f.key == "command") {
      has_command = true;
      if (auto argv = get_command(f.value, ctx.issues)) s.command = *argv;
    } else if (f.key == "run") {
      auto where = get_string(f.value, "write run: inside or run: outside", ctx.issues);
      if (!where) continue;
      if (*where == "outside")
        s.outside = true;
      else if (*where != "inside")
        ctx.issues.add(f.value.mark, f.value.path,
                       fmt::format("unknown value '{}'; write run: inside (the agent's CLI starts "
                                   "it in the unit) or run: outside (awaywork starts it in a "
                                   "sandbox of its own, its secrets outside the unit)",
                                   *where));
    } else if (f.key == "net") {
      net = &f;
      parse_grant_net(f.value, ctx, {"a server run outside reaches", "api.github.com"}, s.net);
    } else if (f.key == "read") {
      read = &f;
      parse_grant_read(f.value, ctx, {"the MCP server", "folders", "~/mcp/my-server"}, s.read);
    } else {
      parse_env_names(f.value, ctx,
                      fmt::format("write a list of variable names, e.g. {}: [GITHUB_TOKEN]", f.key),
                      f.key == "env" ? s.env : s.secrets);
    }
  }
  if (!has_command)
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'command'; add the server's program and arguments, e.g. command: "
                   "[npx, -y, '@modelcontextprotocol/server-filesystem', /work]");
  // Inside, the server is the unit's: it has the unit's network and view, and these would mean
  // nothing (a silently ignored allowlist is worse than an error).
  for (const Field* f : {net, read})
    if (f && !s.outside)
      ctx.issues.add(f->key_mark, f->value.path,
                     fmt::format("{}: applies to a server awaywork runs outside the unit; add run: "
                                 "outside, or remove {}: (a server run inside has the unit's {})",
                                 f->key, f->key, f->key == "net" ? "network" : "view"));
}

}  // namespace

void parse_mcp(const Value& v, const ParseCtx& ctx, std::map<std::string, McpServerConfig>& out) {
  for (const Field& e :
       entries(v, "mcp: {github: {command: [github-mcp], secrets: [GH_MCP]}}", ctx)) {
    McpServerConfig s;
    s.name = e.key;
    s.line = e.key_mark.line + 1;
    parse_server(e, ctx, s);
    out[e.key] = std::move(s);
  }
}

void parse_plugins(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out) {
  constexpr std::string_view hint = "write a list of folders, e.g. plugins: [~/claude/my-plugin]";
  auto paths = get_paths(v, ctx, hint);
  if (!paths) return;
  auto items = get_list(v, hint, ctx.issues);
  for (size_t i = 0; i < paths->size(); ++i) {
    const std::string& p = (*paths)[i];
    if (p == "/" || p == ctx.home) {
      ctx.issues.add((*items)[i].mark, (*items)[i].path,
                     "a plugin folder must be the plugin's own folder, not / or your home");
      continue;
    }
    out.push_back(p);
  }
}

}  // namespace aw
