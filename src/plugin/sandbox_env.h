// The environment of a program awaywork runs in a sandbox of its own (a plugin's call, an MCP
// server run outside the unit), built from nothing: the system's PATH (never the owner's), HOME
// its data folder, TMPDIR, LANG, a variable naming it, the env: names it declares when the owner
// has them set, and the secrets it declares by value. Nothing else of the owner's passes.
//   SandboxEnvSpec spec{"plugin", p.name, "AWAYWORK_PLUGIN", p.env, p.secrets, host.secret,
//                       host.environ_from, data};  // the fields in order
//   AW_TRY(std::vector<std::string> env, sandbox_env(spec));
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace aw {

// The sandbox's PATH: the system's own folders (an owner's ~/.local/bin or nvm is not in the
// sandbox's view, and a PATH naming it would only point at a hole).
inline constexpr const char* kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

struct SandboxEnvSpec {
  std::string_view who;  // how errors name the program: "plugin", "MCP server"
  std::string name;
  std::string marker;  // the variable set to its name: "AWAYWORK_PLUGIN"
  std::vector<std::string> env, secrets;
  // A secret's value by its name (the secret store). Unset: a declared secret is an error.
  std::function<Result<std::string>(const std::string& name)> secret;
  char** environ_from = nullptr;  // where env: names are read; nullptr = environ
  std::string home;
};

// The owner's variable NAME ("NAME=value") in environ_from (nullptr = environ); nullptr when unset.
const char* owner_variable(char** environ_from, std::string_view name);

// An Error when a declared secret cannot be had. secret_values, when given, gets each secret's
// value (for redaction: the program's answers may echo one).
Result<std::vector<std::string>> sandbox_env(const SandboxEnvSpec& spec,
                                             std::vector<std::string>* secret_values = nullptr);

}  // namespace aw
