// An agent's tools that its CLI loads: `mcp:` servers (started by the CLI inside the unit's
// isolation) and `plugins:` folders (mounted read-only). docs/agents.md.
#include <fmt/format.h>

#include "config/parse.h"
#include "config/validate.h"

namespace aw {

void parse_env_names(const Value& v, const ParseCtx& ctx, std::string_view hint,
                     std::vector<std::string>& out) {
  auto items = get_list(v, hint, ctx.issues);
  if (!items) return;
  for (const auto& item : *items) {
    auto s = get_string(item, hint, ctx.issues);
    if (!s) continue;
    if (auto ok = check_env_name(*s); !ok)
      ctx.issues.add(item.mark, item.path, ok.error().message);
    else
      out.push_back(*s);
  }
}

namespace {

void parse_server(const Field& e, const ParseCtx& ctx, McpServerConfig& s) {
  bool has_command = false;
  for (const Field& f : map_fields(e.value, {"command", "env", "secrets"}, ctx.issues)) {
    if (f.key == "command") {
      has_command = true;
      if (auto argv = get_command(f.value, ctx.issues)) s.command = *argv;
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
}

}  // namespace

void parse_mcp(const Value& v, const ParseCtx& ctx, std::map<std::string, McpServerConfig>& out) {
  for (const Field& e :
       entries(v, "mcp: {github: {command: [github-mcp], secrets: [GH_MCP]}}", ctx)) {
    McpServerConfig s;
    s.name = e.key;
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
