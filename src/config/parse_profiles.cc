// The profiles: and inference: sections, and the references other sections make to them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "config/parse.h"
#include "config/suggest.h"
#include "config/validate.h"

namespace aw {
namespace {

void parse_vars(const Value& v, const ParseCtx& ctx, std::map<std::string, std::string>& out) {
  constexpr std::string_view hint = "write a map of names to values, e.g. vars: {NODE_ENV: test}";
  if (!expect_map(v, hint, ctx.issues)) return;
  for (const Field& f : map_fields(v, {}, ctx.issues)) {
    if (auto ok = check_profile_name(f.key); !ok) {
      ctx.issues.add(f.key_mark, f.value.path, ok.error().message);
      continue;
    }
    auto s = get_string(f.value, hint, ctx.issues);
    if (!s) continue;
    // The message names the variable, never its value: the value may be a real token.
    if (auto ok = check_var_value(f.key, *s); !ok)
      ctx.issues.add(f.value.mark, f.value.path, ok.error().message);
    else
      out[f.key] = *s;
  }
}

void parse_secret_names(const Value& v, const ParseCtx& ctx, std::vector<std::string>& out) {
  constexpr std::string_view hint =
      "write a list of secret names, e.g. secrets: [NPM_TOKEN] (store each with `awaywork secret "
      "set NAME`)";
  auto items = get_list(v, hint, ctx.issues);
  if (!items) return;
  for (const auto& item : *items) {
    auto s = get_checked(item, hint, check_profile_name, ctx.issues);
    if (!s) continue;
    if (std::find(out.begin(), out.end(), *s) != out.end())
      ctx.issues.add(item.mark, item.path, fmt::format("'{}' is listed twice; keep one", *s));
    else
      out.push_back(*s);
  }
}

void parse_profile(const Field& e, const ParseCtx& ctx, ProfileConfig& p) {
  for (const Field& f : map_fields(e.value, {"vars", "secrets"}, ctx.issues)) {
    if (f.key == "vars")
      parse_vars(f.value, ctx, p.vars);
    else if (f.key == "secrets")
      parse_secret_names(f.value, ctx, p.secrets);
  }
  for (const auto& name : p.secrets)
    if (p.vars.count(name))
      ctx.issues.add(e.key_mark, e.value.path,
                     fmt::format("'{}' is both a var and a secret; keep one", name));
}

void parse_upstream(const Field& e, const ParseCtx& ctx, InferenceConfig& c) {
  const std::vector<std::string> keys = {"api",          "url",           "credential",
                                         "max_requests", "budget_tokens", "ca_file"};
  bool has_api = false, has_credential = false;
  for (const Field& f : map_fields(e.value, keys, ctx.issues)) {
    const Value& v = f.value;
    if (f.key == "api") {
      has_api = true;
      const std::vector<std::string> apis = {"anthropic", "openai"};
      if (auto i = get_enum(v, apis, ctx.issues)) c.api = apis[*i];
    } else if (f.key == "url") {
      if (auto s = get_checked(v, "write e.g. url: https://api.anthropic.com", check_inference_url,
                               ctx.issues))
        c.url = *s;
    } else if (f.key == "credential") {
      has_credential = true;
      if (auto s = get_checked(v, "write a secret's name, e.g. credential: ANTHROPIC_API_KEY",
                               check_env_name, ctx.issues))
        c.credential = *s;
    } else if (f.key == "max_requests") {
      if (auto n = get_int(v, 0, 1000000000, "write a count, e.g. max_requests: 200 (0 = no limit)",
                           ctx.issues))
        c.max_requests = static_cast<int>(*n);
    } else if (f.key == "budget_tokens") {
      if (auto n = get_int(v, 0, std::numeric_limits<int64_t>::max(),
                           "write a token count, e.g. budget_tokens: 2000000 (0 = no limit)",
                           ctx.issues))
        c.budget_tokens = static_cast<uint64_t>(*n);
    } else if (f.key == "ca_file") {
      if (auto p = get_path(v, ctx, "write a PEM file, e.g. ca_file: ~/corp-ca.pem"))
        c.ca_file = *p;
    }
  }
  if (!has_api)
    ctx.issues.add(e.key_mark, e.value.path, "missing 'api'; write api: anthropic or api: openai");
  if (!has_credential)
    ctx.issues.add(e.key_mark, e.value.path,
                   "missing 'credential'; name the secret holding the key, e.g. credential: "
                   "ANTHROPIC_API_KEY (stored with `awaywork secret set ANTHROPIC_API_KEY`)");
  if (c.url.empty() && has_api && !c.api.empty())
    c.url = c.api == "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com";
}

std::vector<std::string> names_of(const Config& cfg, const std::string& section) {
  std::vector<std::string> out;
  if (section == "profiles")
    for (const auto& [n, _] : cfg.profiles) out.push_back(n);
  else if (section == "forges")
    for (const auto& [n, _] : cfg.forges) out.push_back(n);
  else
    for (const auto& [n, _] : cfg.inference) out.push_back(n);
  return out;
}

}  // namespace

void parse_profiles(const Value& v, const ParseCtx& ctx,
                    std::map<std::string, ProfileConfig>& out) {
  parse_named(v, "profiles: {web: {vars: {NODE_ENV: test}, secrets: [NPM_TOKEN]}}", ctx, out,
              parse_profile);
}

void parse_inference(const Value& v, const ParseCtx& ctx,
                     std::map<std::string, InferenceConfig>& out) {
  parse_named(v, "inference: {anthropic: {api: anthropic, credential: ANTHROPIC_API_KEY}}", ctx,
              out, parse_upstream);
}

void add_ref(const Field& f, const std::string& section, const ParseCtx& ctx, std::string& out) {
  auto s =
      get_string(f.value, fmt::format("write the name of an entry under {}:", section), ctx.issues);
  if (!s) return;
  out = *s;
  ctx.refs.push_back(NameRef{section, *s, f.value.mark, f.value.path});
}

void check_refs(const ParseCtx& ctx, const Config& cfg) {
  for (const NameRef& r : ctx.refs) {
    std::vector<std::string> names = names_of(cfg, r.section);
    if (std::find(names.begin(), names.end(), r.name) != names.end()) continue;
    std::string fix = did_you_mean(r.name, names);
    if (fix.empty())
      fix = names.empty() ? fmt::format("; define it under {}: (see docs/config.md)", r.section)
                          : fmt::format("; defined: {}", fmt::join(names, ", "));
    else
      fix += fmt::format(" (defined: {})", fmt::join(names, ", "));
    ctx.issues.add(r.mark, r.path,
                   fmt::format("'{}' is not defined under {}:{}", r.name, r.section, fix));
  }
}

}  // namespace aw
