// A sandboxed program's environment from nothing (sandbox_env.h).
#include "plugin/sandbox_env.h"

#include <fmt/format.h>

extern char** environ;

namespace aw {

const char* owner_variable(char** environ_from, std::string_view name) {
  for (char** e = environ_from ? environ_from : environ; e && *e; ++e) {
    std::string_view entry(*e);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return *e;
  }
  return nullptr;
}

Result<std::vector<std::string>> sandbox_env(const SandboxEnvSpec& spec,
                                             std::vector<std::string>* secret_values) {
  std::vector<std::string> env = {std::string("PATH=") + kSandboxPath, "HOME=" + spec.home,
                                  "TMPDIR=/tmp", "LANG=C.UTF-8", spec.marker + "=" + spec.name};
  for (const std::string& name : spec.env)
    if (const char* set = owner_variable(spec.environ_from, name)) env.emplace_back(set);
  for (const std::string& name : spec.secrets) {
    if (!spec.secret)
      return fail("{} {} declares the secret {}, and no secret store was given", spec.who,
                  spec.name, name);
    auto value = spec.secret(name);
    if (!value)
      return fail("{} {} declares the secret {}: {}; add it with awaywork secret set {}", spec.who,
                  spec.name, name, value.error().message, name);
    if (secret_values) secret_values->push_back(*value);
    env.push_back(name + "=" + *value);
  }
  return env;
}

}  // namespace aw
