// A plugin's secrets added at its egress proxy (injected_secrets.h).
#include "plugin/injected_secrets.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/random.h"

namespace aw {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

void PluginInjection::into(EgressProxyOptions& o) const {
  o.inject = rules;
  o.placeholders = placeholders;
  o.ca = ca;
}

Result<PluginInjection> plugin_injection(const PluginConfig& p, const PluginHost& host) {
  PluginInjection out;
  std::vector<std::string> net;
  for (const std::string& h : p.net) net.push_back(lower(h));
  std::vector<std::string> hosts;
  for (const std::string& name : p.secrets) {
    auto it = host.inject.find(name);
    if (it == host.inject.end() || it->second.empty()) {
      out.by_name.push_back(name);
      continue;
    }
    // Only the rules for hosts the plugin may reach: the rest would bind a host its proxy
    // refuses anyway, and a CA for names it never asks for.
    std::vector<const InjectRule*> usable;
    std::vector<std::string> rule_hosts;
    for (const InjectRule& r : it->second) {
      rule_hosts.push_back(r.host);
      if (std::find(net.begin(), net.end(), lower(r.host)) != net.end()) usable.push_back(&r);
    }
    if (usable.empty())
      return fail(
          "plugin {}: its secret {} is added by the egress proxy only for {} (secrets.{}.inject), "
          "and plugins.{}.net lists none of them, so no request of the plugin could carry it; "
          "fix: add the host to plugins.{}.net (and to its manifest's net), or remove {} from "
          "plugins.{}.secrets",
          p.name, name, fmt::join(rule_hosts, ", "), name, p.name, p.name, name, p.name);
    if (!host.secret)
      return fail("plugin {} declares the secret {}, and no secret store was given", p.name, name);
    auto value = host.secret(name);
    if (!value)
      return fail("plugin {} declares the secret {}: {}; add it with awaywork secret set {}",
                  p.name, name, value.error().message, name);
    AW_TRY(std::string hex, random_hex(16));
    std::string placeholder = "awaywork-placeholder-" + name + "-" + hex;
    for (const InjectRule* r : usable) {
      out.rules.push_back(EgressInjection{.secret = name,
                                          .value = *value,
                                          .host = lower(r->host),
                                          .header = r->header,
                                          .value_template = r->value,
                                          .basic_user = r->basic_user,
                                          .methods = r->methods,
                                          .paths = r->paths,
                                          .exact_paths = {},
                                          .exclusive = false});
      if (std::find(hosts.begin(), hosts.end(), lower(r->host)) == hosts.end())
        hosts.push_back(lower(r->host));
    }
    out.placeholders[placeholder] = name;
    out.env.push_back(name + "=" + placeholder);
  }
  if (!out.rules.empty()) {
    AW_TRY(out.ca, with_context(UnitCa::make(hosts),
                                fmt::format("plugin {}: the CA of its egress proxy", p.name)));
  }
  return out;
}

}  // namespace aw
