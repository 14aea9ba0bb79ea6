// Joining the config's injection rules with the values the unit read: the only place the two
// meet, so that the proxy's options are made the same way in every isolation.
#include "unit/unit_injection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "secrets/store.h"

namespace aw {

void UnitInjection::into(EgressProxyOptions& o) const {
  o.inject = rules;
  o.placeholders = placeholders;
  o.ca = ca;
}

std::vector<std::pair<std::string, std::string>> ca_bundle_env(const std::string& bundle) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& name : ca_bundle_env_names()) out.emplace_back(name, bundle);
  return out;
}

UnitInjection make_unit_injection(const Config& cfg, const std::vector<InjectedSecret>& secrets) {
  UnitInjection out;
  for (const InjectedSecret& s : secrets) {
    auto it = cfg.secrets.find(s.name);
    if (it == cfg.secrets.end() || it->second.inject.empty()) continue;
    for (const InjectRule& r : it->second.inject) {
      out.rules.push_back(EgressInjection{.secret = s.name,
                                          .value = s.value,
                                          .host = r.host,
                                          .header = r.header,
                                          .value_template = r.value,
                                          .basic_user = r.basic_user,
                                          .methods = r.methods,
                                          .paths = r.paths,
                                          .exact_paths = {},
                                          .exclusive = false});
    }
    out.placeholders[s.placeholder] = s.name;
    out.env.push_back(s.name + "=" + s.placeholder);
    out.literals.push_back(s.value);
    out.literals.push_back(s.placeholder);
  }
  return out;
}

Result<UnitInjection> read_unit_injection(const Config& cfg) {
  if (cfg.secrets.empty()) return UnitInjection{};
  auto store = open_secret_store({});
  if (!store) {
    std::vector<std::string> names;
    for (const auto& [name, _] : cfg.secrets) names.push_back(name);
    return fail(
        "the secret store cannot be opened, so the secrets the egress proxy adds ({}) cannot be "
        "read: {}",
        fmt::join(names, ", "), store.error().message);
  }
  AW_TRY(std::vector<InjectedSecret> read, read_injected_secrets(cfg, **store));
  UnitInjection out = make_unit_injection(cfg, read);
  if (!out.rules.empty()) {
    std::vector<std::string> hosts;
    for (const auto& r : out.rules) hosts.push_back(r.host);
    AW_TRY(out.ca, UnitCa::make(hosts));
  }
  return out;
}

std::vector<std::string> injection_notes(const UnitInjection& u) {
  std::map<std::string, std::vector<std::string>> hosts;  // name -> hosts, in rule order
  for (const EgressInjection& r : u.rules) {
    auto& h = hosts[r.secret];
    if (std::find(h.begin(), h.end(), r.host) == h.end()) h.push_back(r.host);
  }
  std::vector<std::string> out;
  for (const auto& [name, h] : hosts)
    out.push_back(
        fmt::format("secret {} is added by the egress proxy for {} (the phases hold a "
                    "placeholder)",
                    name, fmt::join(h, ", ")));
  return out;
}

std::optional<std::string> apply_egress_test_upstream(EgressProxyOptions& o) {
#ifndef AW_TEST_HOOKS
  (void)o;  // the Release binary has no such hook: the variable is never read
  return std::nullopt;
#else
  const char* v = std::getenv("AWAYWORK_TEST_EGRESS_UPSTREAM");
  if (!v || !*v) return std::nullopt;
  std::istringstream in(v);
  std::string ca, host;
  in >> ca;
  std::vector<std::string> hosts;
  while (in >> host) {
    o.static_hosts[host] = "127.0.0.1";
    hosts.push_back(host);
  }
  o.ca_file = ca;
  o.allow_private_upstream = true;
  return fmt::format(
      "test hook AWAYWORK_TEST_EGRESS_UPSTREAM: the egress proxy reached {} at 127.0.0.1 and "
      "trusted {}",
      fmt::join(hosts, ", "), ca);
#endif
}

}  // namespace aw
