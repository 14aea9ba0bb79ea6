// The secrets the egress proxy adds to requests (config `secrets:`, issue 27), read from the
// store before any phase. Each gets a placeholder: what the phase holds instead of the value (a
// tool may need the variable to exist), random per unit so that the proxy can tell it apart and
// refuse it on its way to any other host.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "config/config.h"
#include "secrets/store.h"

namespace aw {

struct InjectedSecret {
  std::string name;         // the store's name (what logs and the record show)
  std::string value;        // the credential: handed to the egress proxy only
  std::string placeholder;  // awaywork-placeholder-NAME-<32 hex>: what the phase may hold
};

// Every secret under cfg.secrets, from the store. A missing one is a config error at its line,
// with the fix: "FILE:LINE: secrets.NAME: not in the secret store (BACKEND); store it with
// `awaywork secret set NAME`". The error never carries a value.
Result<std::vector<InjectedSecret>> read_injected_secrets(const Config& cfg, SecretStore& store);

// awaywork-placeholder-NAME-<32 random hex digits>.
Result<std::string> make_placeholder(const std::string& name);

}  // namespace aw
