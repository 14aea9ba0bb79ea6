// Reading the injected secrets: all of them before any phase, so that a unit never starts with a
// rule the proxy could not honour.
#include "secrets/injected.h"

#include <fmt/format.h>

#include "base/random.h"

namespace aw {

Result<std::string> make_placeholder(const std::string& name) {
  AW_TRY(std::string nonce, random_hex(16));
  return fmt::format("awaywork-placeholder-{}-{}", name, nonce);
}

Result<std::vector<InjectedSecret>> read_injected_secrets(const Config& cfg, SecretStore& store) {
  std::vector<InjectedSecret> out;
  std::vector<std::string> missing;
  for (const auto& [name, s] : cfg.secrets) {
    auto value = store.get(name);
    if (!value) {
      // The store's own message may say why (a locked keyring); it never holds a value.
      missing.push_back(fmt::format(
          "{}:{}: secrets.{}: not in the secret store ({}); store it with `awaywork secret set "
          "{}`",
          cfg.file.empty() ? "<config>" : cfg.file, s.line, name, store.backend(), name));
      continue;
    }
    AW_TRY(std::string placeholder, make_placeholder(name));
    out.push_back(InjectedSecret{name, std::move(*value), std::move(placeholder)});
  }
  if (!missing.empty()) {
    std::string all;
    for (const auto& m : missing) all += (all.empty() ? "" : "\n") + m;
    return fail(all);
  }
  return out;
}

}  // namespace aw
