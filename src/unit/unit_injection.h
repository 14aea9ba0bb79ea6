// A unit's injected secrets (config `secrets:`, issue 27), made once before any phase from the
// values read from the store: the rules and placeholders the egress proxy starts with, the
// placeholder each phase's environment holds instead of a value, and what the unit's record is
// redacted of. The isolations start the proxy with into(); no phase ever gets `rules`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
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
  // The unit's CA (made when a rule exists): the proxy issues the bound hosts' certificates with
  // it; the phases get its certificate only (ca_bundle_env, a bundle written by the pipeline).
  std::shared_ptr<const UnitCa> ca;

  bool empty() const { return rules.empty(); }
  // The egress proxy's share: its rules, the placeholders it refuses elsewhere, the CA.
  void into(EgressProxyOptions& o) const;
};

// The unit's injected secrets read from the default secret store (opened only when cfg.secrets
// names any) and joined with their rules. An Error is read_injected_secrets's, naming every
// missing secret at its config line with `awaywork secret set NAME`; it never holds a value.
Result<UnitInjection> read_unit_injection(const Config& cfg);

// What every phase gets to trust the unit's CA: each of ca_bundle_env_names() set to bundle (the
// system's CAs and the unit's, written by write_ca_bundle).
std::vector<std::pair<std::string, std::string>> ca_bundle_env(const std::string& bundle);

// For the record's notes (what `awaywork show` prints): each injected secret by name with the
// hosts it is added for, never a value or placeholder. Empty when there are none.
std::vector<std::string> injection_notes(const UnitInjection& u);

// Test-only, for the end-to-end tests whose fake upstreams listen on loopback with a test CA:
// Compiled in only with AW_TEST_HOOKS (the debug tree, scripts/build; never the Release binary).
// AWAYWORK_TEST_EGRESS_UPSTREAM="CA_FILE HOST..." in awaywork's own environment (the owner's,
// never a phase's) makes the egress proxy resolve each HOST to 127.0.0.1, let an upstream be
// private, and trust CA_FILE. Answers the note the record carries when it is in effect, so that
// no unit that ran with it looks like an ordinary one.
std::optional<std::string> apply_egress_test_upstream(EgressProxyOptions& o);

// The rules of cfg.secrets joined with the values read (read_injected_secrets). A secret read
// but without rules, or a rule whose secret was not read, adds nothing.
UnitInjection make_unit_injection(const Config& cfg, const std::vector<InjectedSecret>& secrets);

}  // namespace aw
