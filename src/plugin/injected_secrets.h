// A plugin's declared secrets that the config's top-level `secrets:` gives injection rules (issue
// 27's injection, for the plugin's own egress proxy; docs/plugins.md#secrets-added-at-the-proxy):
// their values are never handed to the plugin. Its egress proxy adds each for the rules' hosts the
// plugin declares in `net:`, and the plugin holds a placeholder (a fresh one per call) in the
// variable of that name, as a unit's phase does. A declared secret without rules is still handed
// by value (sandbox_env.h).
//
//   AW_TRY(PluginInjection inj, plugin_injection(p, host));
//   spec.secrets = inj.by_name;  env += inj.env;  proxy options: inj.into(o)
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "plugin/call.h"
#include "proxy/egress_proxy.h"

namespace aw {

struct PluginInjection {
  std::vector<EgressInjection> rules;               // with their values: the proxy's alone
  std::map<std::string, std::string> placeholders;  // placeholder -> secret name
  std::vector<std::string> env;                     // NAME=placeholder, for the plugin
  std::vector<std::string> by_name;  // the declared secrets without rules: handed by value
  // Made when a rule exists: the proxy issues the bound hosts' certificates with it; the plugin
  // trusts its certificate alone (a CA bundle lent read-only, ca_bundle_env_names()).
  std::shared_ptr<const UnitCa> ca;

  bool empty() const { return rules.empty(); }
  void into(EgressProxyOptions& o) const;
};

// An Error, naming the plugin, the secret and the fix, when a declared secret with rules cannot be
// read, or none of its rules names a host of the plugin's `net:` (no request of the plugin could
// get it: the owner's slip, refused rather than run without it).
Result<PluginInjection> plugin_injection(const PluginConfig& p, const PluginHost& host);

}  // namespace aw
