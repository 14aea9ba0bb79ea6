// A unit's injected secrets (config `secrets:`, issue 27), made once before any phase from the
// values read from the store: the rules and placeholders the egress proxy starts with, the
// placeholder each phase's environment holds instead of a value, and what the unit's record is
// redacted of. The isolations start the proxy with into(); no phase ever gets `rules`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "proxy/egress_proxy.h"
#include "secrets/injected.h"

namespace aw {

struct UnitInjection {
  std::vector<EgressInjection> rules;               // one per config rule, with its value
  std::map<std::string, std::string> placeholders;  // placeholder -> secret name
  std::vector<std::string> env;                     // NAME=placeholder, for every phase
  // The values and placeholders every recorded byte is redacted of, and that a patch or a
  // request must not hold (a placeholder is treated like the secret it stands for).
  std::vector<std::string> literals;

  bool empty() const { return rules.empty(); }
  // The egress proxy's share: its rules and the placeholders it refuses elsewhere.
  void into(EgressProxyOptions& o) const;
};

// The rules of cfg.secrets joined with the values read (read_injected_secrets). A secret read
// but without rules, or a rule whose secret was not read, adds nothing.
UnitInjection make_unit_injection(const Config& cfg, const std::vector<InjectedSecret>& secrets);

}  // namespace aw
