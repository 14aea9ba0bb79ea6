// parse_config: YAML text -> Config, top level. Every problem in the file is collected so that the
// user fixes them all in one go; the result is either a complete Config or all the errors.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

#include <yaml-cpp/depthguard.h>

#include "config/parse.h"
#include "config/paths.h"
#include "config/suggest.h"
#include "config/validate.h"

namespace aw {

const char* to_string(Isolation v) {
  switch (v) {
    case Isolation::none:
      return "none";
    case Isolation::user:
      return "user";
    case Isolation::container:
      return "container";
  }
  return "?";
}

const char* to_string(SandboxMode v) {
  switch (v) {
    case SandboxMode::off:
      return "off";
    case SandboxMode::preferred:
      return "preferred";
    case SandboxMode::required:
      return "required";
  }
  return "?";
}

const char* to_string(Network v) {
  switch (v) {
    case Network::none:
      return "none";
    case Network::allowlist:
      return "allowlist";
    case Network::host:
      return "host";
  }
  return "?";
}

const char* to_string(PluginKind v) {
  switch (v) {
    case PluginKind::notifier:
      return "notifier";
    case PluginKind::check:
      return "check";
    case PluginKind::source:
      return "source";
  }
  return "?";
}

std::optional<std::string> get_path(const Value& v, const ParseCtx& ctx, std::string_view hint) {
  if (v.node.IsNull()) {
    ctx.issues.add(v.mark, v.path,
                   "expected a path, found nothing (a bare ~ is YAML's null); write \"~\" for "
                   "your home folder, or a path such as ~/state");
    return std::nullopt;
  }
  auto s = get_string(v, hint, ctx.issues);
  if (!s) return std::nullopt;
  auto p = expand_path(*s, ctx.base_dir, ctx.home);
  if (!p) {
    ctx.issues.add(v.mark, v.path, p.error().message);
    return std::nullopt;
  }
  return *p;
}

std::optional<std::vector<std::string>> get_paths(const Value& v, const ParseCtx& ctx,
                                                  std::string_view hint) {
  auto items = get_list(v, hint, ctx.issues);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& item : *items)
    if (auto p = get_path(item, ctx, hint)) out.push_back(*p);
  if (out.size() != items->size()) return std::nullopt;
  return out;
}

std::optional<std::string> get_checked(const Value& v, std::string_view hint,
                                       Status (*check)(const std::string&), Issues& issues) {
  auto s = get_string(v, hint, issues);
  if (!s) return std::nullopt;
  if (auto ok = check(*s); !ok) {
    issues.add(v.mark, v.path, ok.error().message);
    return std::nullopt;
  }
  return s;
}

namespace {

const std::vector<std::string> kTopKeys = {
    "isolation", "agent",       "unit_minutes",         "state_dir",       "sandbox",  "agents",
    "repos",     "worker_user", "container_engine",     "container_image", "profiles", "inference",
    "forges",    "limits",      "max_transcript_bytes", "watch",           "secrets",
    "plugins"};

Status check_engine(const std::string& e) {
  if (e == "docker" || e == "podman" || (e.size() > 1 && e[0] == '/')) return {};
  return fail("'{}' is not docker, podman or an absolute path to an engine client", e);
}

// `agent:` names one of `agents:`; with no `agent:` a single defined agent is the default.
void resolve_default_agent(const std::optional<Value>& agent, const ParseCtx& ctx, Config& cfg) {
  if (!agent) {
    if (cfg.agents.size() == 1) cfg.default_agent = cfg.agents.begin()->first;
    return;
  }
  auto name = get_string(*agent, "write the name of an agent defined under agents:", ctx.issues);
  if (!name) return;
  if (cfg.agents.count(*name)) {
    cfg.default_agent = *name;
    return;
  }
  std::vector<std::string> names;
  for (const auto& [n, _] : cfg.agents) names.push_back(n);
  std::string fix = did_you_mean(*name, names);
  if (fix.empty())
    fix = names.empty()
              ? fmt::format(
                    "; define it under agents:, e.g. agents: {{{}: {{command: "
                    "\"...\"}}}}",
                    *name)
              : fmt::format("; define it under agents: or use one of {}", fmt::join(names, ", "));
  ctx.issues.add(agent->mark, agent->path,
                 fmt::format("'{}' is not an agent defined under agents{}", *name, fix));
}

void parse_top(const YAML::Node& root, const ParseCtx& ctx, Config& cfg) {
  Value top{root, "", root.Mark()};
  if (!root.IsMap()) {
    ctx.issues.add(root.Mark(), "",
                   fmt::format("the file must be a map of keys (isolation:, agents:, repos: ...), "
                               "found {}; see examples/config.yml",
                               kind_of(root)));
    return;
  }
  std::optional<Value> agent, watch, secrets;
  for (const Field& f : map_fields(top, kTopKeys, ctx.issues)) {
    const Value& v = f.value;
    if (f.key == "isolation") {
      if (auto i = get_enum(v, {"none", "user", "container"}, ctx.issues))
        cfg.isolation = static_cast<Isolation>(*i);
    } else if (f.key == "agent") {
      agent = v;
    } else if (f.key == "unit_minutes") {
      if (auto n = get_int(v, 1, 10080, "write minutes, e.g. unit_minutes: 60", ctx.issues))
        cfg.unit_minutes = static_cast<int>(*n);
    } else if (f.key == "state_dir") {
      if (auto p = get_path(v, ctx, "write a folder, e.g. state_dir: ~/.local/state/awaywork"))
        cfg.state_dir = *p;
    } else if (f.key == "sandbox") {
      parse_sandbox(v, ctx, cfg.sandbox);
    } else if (f.key == "limits") {
      parse_watchdog_limits(v, ctx, cfg.limits);
    } else if (f.key == "max_transcript_bytes") {
      parse_transcript_cap(v, ctx, cfg.max_transcript_bytes);
    } else if (f.key == "agents") {
      parse_agents(v, ctx, cfg.agents);
    } else if (f.key == "repos") {
      parse_repos(v, ctx, cfg.repos);
    } else if (f.key == "profiles") {
      parse_profiles(v, ctx, cfg.profiles);
    } else if (f.key == "inference") {
      parse_inference(v, ctx, cfg.inference);
    } else if (f.key == "forges") {
      parse_forges(v, ctx, cfg.forges);
    } else if (f.key == "watch") {
      watch = v;
    } else if (f.key == "secrets") {
      secrets = v;
      parse_secrets(v, ctx, cfg.secrets);
    } else if (f.key == "plugins") {
      parse_plugin_code(v, ctx, cfg.plugins);
    } else if (f.key == "worker_user") {
      if (auto n = get_checked(v, "write a user name, e.g. worker_user: awaywork", check_user_name,
                               ctx.issues))
        cfg.worker_user = *n;
    } else if (f.key == "container_engine") {
      if (auto e = get_checked(v, "write docker or podman", check_engine, ctx.issues))
        cfg.container_engine = *e;
    } else if (f.key == "container_image") {
      if (auto i =
              get_checked(v, "write an image name, e.g. debian:bookworm", check_image, ctx.issues))
        cfg.container_image = *i;
    }
  }
  resolve_default_agent(agent, ctx, cfg);
  resolve_implied_forges(ctx, cfg);
  check_agent_forges(ctx, cfg);
  check_refs(ctx, cfg);
  if (secrets) check_secret_bindings(*secrets, ctx, cfg);
  if (watch) parse_watch(*watch, ctx, cfg);
}

std::string folder_of(const std::string& file) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(file.empty() ? "." : file, ec);
  if (ec) return "/";
  return (file.empty() ? abs : abs.parent_path()).lexically_normal().string();
}

}  // namespace

Result<Config> parse_config(const std::string& text, const std::string& file) {
  Issues issues(file.empty() ? "<config>" : file);
  std::vector<NameRef> refs, implied;
  ParseCtx ctx{issues, folder_of(file), home_dir(), refs, implied};
  Config cfg;
  cfg.file = file;
  cfg.state_dir = default_state_dir();
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.size() > 1)
      issues.add(docs[1].Mark(), "",
                 "a second YAML document (after ---); keep the whole config in one document");
    else if (!docs.empty() && !docs[0].IsNull())
      parse_top(docs[0], ctx, cfg);
  } catch (const YAML::DeepRecursion& e) {
    issues.add(e.mark, "",
               fmt::format("YAML syntax error: nested more than {} levels deep; the config needs "
                           "five at most: check the brackets here",
                           e.depth()));
  } catch (const YAML::Exception& e) {
    // ParserException (and DeepRecursion) carry the position of the syntax error.
    issues.add(e.mark, "",
               fmt::format("YAML syntax error: {}; check the indentation, brackets and quotes "
                           "here (a value containing ': ' or starting with [ {{ * & ! needs "
                           "quotes)",
                           e.msg));
  }
  if (!issues.empty()) return fail(issues.joined());
  return cfg;
}

}  // namespace aw
