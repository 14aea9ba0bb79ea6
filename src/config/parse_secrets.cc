// The secrets: section: secrets the egress proxy adds to requests (issue 27, DESIGN.md section 4)
// instead of handing them to a phase. Each rule is refused here when it could not keep its promise:
// a host the sandbox does not allow (the proxy would never see the request), a host reached in
// clear text or by wildcard or address (the value would go where the owner did not name), a header
// that frames the request, a value without {secret}, or a profile or MCP server that would hand
// the same secret to the phase anyway.
#include <fmt/format.h>

#include <strings.h>

#include <algorithm>

#include "config/parse.h"
#include "config/validate.h"

namespace aw {
namespace {

constexpr std::string_view kExample =
    "secrets: {NPM_TOKEN: {inject: [{host: npm.example.com, header: Authorization, value: "
    "\"Bearer {secret}\"}]}}";

bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

Status check_inject_host(const std::string& host) {
  std::string lower = host;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower.starts_with("http://"))
    return fail(
        "'{}' is plain http: the secret would cross the network in clear text; awaywork adds it "
        "only over verified TLS, so write the host name alone, e.g. host: {}",
        host,
        host.substr(
            7, host.find('/', 7) == std::string::npos ? std::string::npos : host.find('/', 7) - 7));
  if (lower.starts_with("https://"))
    return fail("write the host name alone, e.g. host: {} (the proxy always reaches it by https)",
                host.substr(8, host.find('/', 8) == std::string::npos ? std::string::npos
                                                                      : host.find('/', 8) - 8));
  if (lower.starts_with("*."))
    return fail(
        "'{}' is a wildcard; a secret is added for one exact host, so name it, e.g. host: "
        "registry{}",
        host, host.substr(1));
  auto d = check_domain(host);
  if (!d) return tl::unexpected<Error>(d.error());
  bool digits = std::all_of(lower.begin(), lower.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
  if (digits)
    return fail(
        "'{}' is an address; bind the secret to the host's name, whose certificate "
        "the proxy verifies",
        host);
  return {};
}

// Headers that frame or route the request: setting them would let a rule break the request
// apart or point it elsewhere.
Status check_header(const std::string& h) {
  if (h.empty() || !std::all_of(h.begin(), h.end(), token_char))
    return fail("'{}' is not a header name; write e.g. header: PRIVATE-TOKEN", h);
  static const char* const framing[] = {"host",       "content-length", "transfer-encoding",
                                        "connection", "keep-alive",     "upgrade",
                                        "te",         "trailer",        "proxy-connection"};
  for (const char* f : framing)
    if (strcasecmp(h.c_str(), f) == 0)
      return fail(
          "'{}' frames or routes the request, so no secret goes there; use the header "
          "the service reads the token from, e.g. Authorization",
          h);
  return {};
}

Status check_value_template(const std::string& v) {
  size_t at = v.find("{secret}");
  if (at == std::string::npos || v.find("{secret}", at + 1) != std::string::npos)
    return fail(
        "write {{secret}} exactly once where the value goes, e.g. value: \"Bearer "
        "{{secret}}\"");
  for (char c : v)
    if (c == '\r' || c == '\n' || c == '\0')
      return fail("a header value is one line; remove the line break");
  return {};
}

void parse_rule(const Value& item, const ParseCtx& ctx, InjectRule& r, bool& ok) {
  const std::vector<std::string> keys = {"host", "header", "value", "basic", "methods", "paths"};
  if (!expect_map(item, fmt::format("write each rule as a map, e.g. {}", kExample), ctx.issues)) {
    ok = false;
    return;
  }
  bool has_host = false, has_value = false, has_basic = false;
  for (const Field& f : map_fields(item, keys, ctx.issues)) {
    const Value& v = f.value;
    auto report = [&](Status s) {
      if (s) return true;
      ctx.issues.add(v.mark, v.path, s.error().message);
      ok = false;
      return false;
    };
    if (f.key == "host") {
      has_host = true;
      auto s = get_string(v, "write the host name, e.g. host: npm.example.com", ctx.issues);
      if (s && report(check_inject_host(*s))) {
        r.host = *s;
        std::transform(r.host.begin(), r.host.end(), r.host.begin(),
                       [](unsigned char c) { return std::tolower(c); });
      }
    } else if (f.key == "header") {
      auto s = get_string(v, "write a header name, e.g. header: Authorization", ctx.issues);
      if (s && report(check_header(*s))) r.header = *s;
    } else if (f.key == "value") {
      has_value = true;
      auto s = get_string(v, "write e.g. value: \"Bearer {secret}\"", ctx.issues);
      if (s && report(check_value_template(*s))) r.value = *s;
    } else if (f.key == "basic") {
      has_basic = true;
      constexpr std::string_view hint = "write e.g. basic: {user: deploy}";
      if (!expect_map(v, hint, ctx.issues)) continue;
      for (const Field& b : map_fields(v, {"user"}, ctx.issues)) {
        auto u = get_string(b.value, hint, ctx.issues);
        if (!u) continue;
        if (u->empty() || u->find(':') != std::string::npos ||
            u->find_first_of("\r\n") != std::string::npos)
          report(fail("a Basic user is one line without ':'; write e.g. basic: {{user: deploy}}"));
        else
          r.basic_user = *u;
      }
      if (r.basic_user.empty() && ok)
        report(fail("missing 'user'; write e.g. basic: {{user: deploy}}"));
    } else if (f.key == "methods") {
      auto list = get_strings(v, "write e.g. methods: [GET, HEAD]", ctx.issues);
      if (!list) continue;
      for (std::string m : *list) {
        std::transform(m.begin(), m.end(), m.begin(),
                       [](unsigned char c) { return std::toupper(c); });
        if (m.empty() || !std::all_of(m.begin(), m.end(), token_char) || m == "CONNECT")
          report(
              fail("'{}' is not an HTTP method the proxy adds a secret to; write e.g. "
                   "methods: [GET, HEAD]",
                   m));
        else
          r.methods.push_back(m);
      }
    } else if (f.key == "paths") {
      auto list = get_strings(v, "write path prefixes, e.g. paths: [/api/v4/]", ctx.issues);
      if (!list) continue;
      for (const std::string& p : *list) {
        if (!p.starts_with("/") || p.find_first_of(" \r\n\t?#") != std::string::npos ||
            p.find("..") != std::string::npos)
          report(
              fail("'{}' is not a path prefix; write one starting with /, without spaces, "
                   "'..', query or fragment, e.g. /api/v4/",
                   p));
        else
          r.paths.push_back(p);
      }
    }
  }
  if (!has_host) {
    ctx.issues.add(item.mark, item.path,
                   "missing 'host'; name the one host the secret is added for, e.g. host: "
                   "npm.example.com");
    ok = false;
  }
  if (has_basic && (has_value || r.header != "Authorization")) {
    ctx.issues.add(item.mark, item.path,
                   "basic: sets the Authorization header itself; remove value: and header:");
    ok = false;
  }
}

// Where each rule's host is, for the cross-checks (a scratch Issues: the parse reported already).
std::vector<std::pair<std::string, Value>> host_values(const Field& secret, const ParseCtx& ctx) {
  std::vector<std::pair<std::string, Value>> out;
  Issues scratch(ctx.issues.file());
  for (const Field& f : map_fields(secret.value, {}, scratch)) {
    if (f.key != "inject" || !f.value.node.IsSequence()) continue;
    auto items = get_list(f.value, "", scratch);
    for (const Value& item : items.value_or(std::vector<Value>{})) {
      if (!item.node.IsMap()) continue;
      for (const Field& h : map_fields(item, {}, scratch))
        if (h.key == "host") out.emplace_back(h.value.node.Scalar(), h.value);
    }
  }
  return out;
}

bool allowed_by(const std::vector<std::string>& allow, const std::string& host) {
  for (const auto& a : allow) {
    if (a == host) return true;
    if (a.starts_with("*.") && host.size() > a.size() - 1 && host.ends_with(a.substr(1)))
      return true;
  }
  return false;
}

}  // namespace

void parse_secrets(const Value& v, const ParseCtx& ctx, std::map<std::string, SecretConfig>& out) {
  if (!expect_map(v, fmt::format("write e.g. {}", kExample), ctx.issues)) return;
  for (const Field& e : map_fields(v, {}, ctx.issues)) {
    if (!entry_ok(e, check_profile_name(e.key), kExample, ctx)) continue;
    SecretConfig s;
    s.name = e.key;
    s.line = e.key_mark.line + 1;
    bool has_inject = false;
    for (const Field& f : map_fields(e.value, {"inject"}, ctx.issues)) {
      has_inject = true;
      auto items =
          get_list(f.value, fmt::format("write a list of rules, e.g. {}", kExample), ctx.issues);
      if (!items) continue;
      if (items->empty())
        ctx.issues.add(f.value.mark, f.value.path,
                       "an empty list adds the secret nowhere; write a rule or remove the secret");
      for (const Value& item : *items) {
        InjectRule r;
        bool ok = true;
        parse_rule(item, ctx, r, ok);
        if (ok) s.inject.push_back(std::move(r));
      }
    }
    if (!has_inject)
      ctx.issues.add(e.key_mark, e.value.path,
                     fmt::format("missing 'inject'; write e.g. {}", kExample));
    out[e.key] = std::move(s);
  }
}

void check_secret_bindings(const Value& v, const ParseCtx& ctx, const Config& cfg) {
  if (!v.node.IsMap()) return;
  Issues scratch(ctx.issues.file());
  for (const Field& e : map_fields(v, {}, scratch)) {
    if (!cfg.secrets.count(e.key) || !e.value.node.IsMap()) continue;
    for (const auto& [raw, hv] : host_values(e, ctx)) {
      std::string host = raw;
      std::transform(host.begin(), host.end(), host.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (!check_inject_host(raw)) continue;  // reported by the parse
      if (cfg.sandbox.network != Network::allowlist)
        ctx.issues.add(hv.mark, hv.path,
                       fmt::format("the secret is added by the egress proxy, which runs only with "
                                   "sandbox: {{network: allowlist, allow: [{}]}}",
                                   host));
      else if (!allowed_by(cfg.sandbox.allow, host))
        ctx.issues.add(hv.mark, hv.path,
                       fmt::format("'{}' is not in sandbox.allow, so no request reaches it; add "
                                   "it: sandbox: {{allow: [{}]}}",
                                   host, host));
    }
    // The same secret handed to a phase by name would put its value back in the unit.
    for (const auto& [pname, p] : cfg.profiles)
      if (std::find(p.secrets.begin(), p.secrets.end(), e.key) != p.secrets.end())
        ctx.issues.add(e.key_mark, e.value.path,
                       fmt::format("'{}' is injected by the proxy and also listed in profiles.{}"
                                   ".secrets, which would put its value in the phase; remove it "
                                   "from that list",
                                   e.key, pname));
    // A server run outside (run: outside) gets its secrets in its own sandbox on the owner's
    // side, never in the unit: the value may go there too. One the CLI starts inside may not.
    for (const auto& [aname, a] : cfg.agents)
      for (const auto& [sname, s] : a.mcp)
        if (!s.outside && std::find(s.secrets.begin(), s.secrets.end(), e.key) != s.secrets.end())
          ctx.issues.add(e.key_mark, e.value.path,
                         fmt::format("'{}' is injected by the proxy and also listed in agents.{}"
                                     ".mcp.{}.secrets, which would put its value in the unit; "
                                     "remove it from that list, or run the server outside the "
                                     "unit (run: outside)",
                                     e.key, aname, sname));
  }
}

}  // namespace aw
