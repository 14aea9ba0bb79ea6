// The plugins: section: the owner's own plugin code (issue 28, docs/plugins.md) and the switch that
// stops all of it. Each plugin declares everything it may have (hosts, paths read and written,
// secrets, variables, limits): the sandbox it runs in is built from this and nothing else, so what
// is refused here is what could not be held to (a program found by PATH, a host the proxy cannot
// name, a variable awaywork sets itself, a limit too small to start a program or too large to be
// one).
#include <fmt/format.h>

#include <algorithm>

#include "config/duration.h"
#include "config/parse.h"
#include "config/parse_grants.h"
#include "config/size.h"
#include "config/validate.h"

namespace aw {
namespace {

constexpr std::string_view kPluginsExample =
    "plugins: {run: true, notify: {kind: notifier, command: [/opt/notify/notify], net: "
    "[hooks.example.com], secrets: [NOTIFY_TOKEN], timeout: 10s, memory: 256M}}";

const std::vector<std::string> kPluginKeys = {
    "kind", "command", "net", "read", "write", "secrets", "env", "timeout", "memory", "processes"};

void parse_command(const Value& v, const ParseCtx& ctx, Argv& out) {
  auto argv = get_command(v, ctx.issues);
  if (!argv) return;
  const std::string& program = (*argv)[0];
  // A bare name would be looked up in a PATH the plugin's sandbox does not share with the owner;
  // an absolute path names exactly the program (and the folder) the sandbox lends.
  if (program.empty() || program[0] != '/' || program == "/" ||
      program.find("/../") != std::string::npos) {
    ctx.issues.add(v.mark, v.path,
                   fmt::format("'{}' is not an absolute path to the plugin's program; write it in "
                               "full, e.g. command: [/opt/notify/notify]",
                               program));
    return;
  }
  out = *argv;
}

// Names handed to the plugin's empty environment: a variable name awaywork does not set itself.
void parse_names(const Value& v, const ParseCtx& ctx, std::string_view key,
                 std::vector<std::string>& out) {
  std::vector<std::string> names;
  parse_env_names(
      v, ctx, fmt::format("write a list of variable names, e.g. {}: [NOTIFY_TOKEN]", key), names);
  for (const std::string& n : names) {
    if (auto ok = check_profile_name(n); !ok)
      ctx.issues.add(v.mark, v.path, ok.error().message);
    else
      out.push_back(n);
  }
}

// write: folders the plugin writes besides its data folder. Refused here: / and the home (or a
// folder above it); that each exists and is not awaywork's state, config or database is checked on
// this machine before each call and at approval (plugin/write_paths.h).
void parse_write(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out) {
  auto paths = get_paths(v, ctx, "write a list of folders, e.g. write: [~/notes]");
  if (!paths) return;
  for (std::string p : *paths) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();  // "~" expands to "HOME/"
    if (p == "/" || p == ctx.home || (!ctx.home.empty() && ctx.home.starts_with(p + "/"))) {
      ctx.issues.add(v.mark, v.path,
                     fmt::format("'{}' would let the plugin write all of / or your home; name "
                                 "the folder it writes, e.g. write: [~/notes]",
                                 p));
      continue;
    }
    out.push_back(p);
  }
}

void parse_plugin(const Field& e, const ParseCtx& ctx, PluginConfig& p) {
  bool has_kind = false, has_command = false;
  for (const Field& f : map_fields(e.value, kPluginKeys, ctx.issues)) {
    const Value& v = f.value;
    if (f.key == "kind") {
      has_kind = true;
      if (auto k = get_enum(v, {"notifier", "source", "check"}, ctx.issues))
        p.kind = *k == 0 ? PluginKind::notifier : *k == 1 ? PluginKind::source : PluginKind::check;
    } else if (f.key == "command") {
      has_command = true;
      parse_command(v, ctx, p.command);
    } else if (f.key == "net") {
      parse_grant_net(v, ctx, {"the plugin reaches", "hooks.example.com"}, p.net);
    } else if (f.key == "read") {
      parse_grant_read(v, ctx, {"the plugin", "files", "~/notify/config.json"}, p.read);
    } else if (f.key == "write") {
      parse_write(v, ctx, p.write);
    } else if (f.key == "secrets" || f.key == "env") {
      parse_names(v, ctx, f.key, f.key == "secrets" ? p.secrets : p.env);
    } else if (f.key == "timeout") {
      // One call's time (config/duration.h).
      parse_duration_key(v, ctx, {1000, 600 * 1000, "1s", "10m"}, "timeout: 10s", p.timeout_ms);
    } else if (f.key == "memory") {
      constexpr std::string_view hint = "write a size from 16M to 16G, e.g. memory: 256M";
      auto s = get_string(v, hint, ctx.issues);
      if (!s) continue;
      auto n = parse_size(*s);
      if (!n || *n < (16ull << 20) || *n > (16ull << 30))
        ctx.issues.add(v.mark, v.path,
                       fmt::format("'{}' is not a size from 16M to 16G; {}", *s, hint));
      else
        p.memory_bytes = *n;
    } else if (f.key == "processes") {
      if (auto n =
              get_int(v, 1, 4096, "write a count from 1 to 4096, e.g. processes: 32", ctx.issues))
        p.processes = static_cast<int>(*n);
    }
  }
  for (const std::string& s : p.secrets)
    if (std::find(p.env.begin(), p.env.end(), s) != p.env.end())
      ctx.issues.add(e.key_mark, e.value.path,
                     fmt::format("'{}' is in both secrets: and env:; a secret's value comes from "
                                 "the secret store, so remove it from env:",
                                 s));
  if (!has_kind)
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'kind'; say what the plugin is for, e.g. kind: notifier");
  if (!has_command)
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'command'; add the plugin's program, e.g. command: "
                   "[/opt/notify/notify]");
}

}  // namespace

void parse_plugin_code(const Value& v, const ParseCtx& ctx, PluginsConfig& out) {
  if (!expect_map(v, fmt::format("write e.g. {}", kPluginsExample), ctx.issues)) return;
  for (const Field& e : map_fields(v, {}, ctx.issues)) {
    if (e.key == "run") {
      if (auto b = get_bool(e.value, "write run: true to let declared plugins run, or run: false",
                            ctx.issues))
        out.run = *b;
      continue;
    }
    if (!entry_ok(e, check_entry_name(e.key), kPluginsExample, ctx)) continue;
    PluginConfig p;
    p.name = e.key;
    p.line = e.key_mark.line + 1;
    parse_plugin(e, ctx, p);
    out.plugins[e.key] = std::move(p);
  }
}

}  // namespace aw
