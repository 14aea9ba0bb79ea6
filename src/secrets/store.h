// The secret store (DESIGN.md section 4): secrets live in the OS credential store (Secret Service
// through libsecret when a session bus answers) or, where none answers, in an encrypted file
// (libsodium). Never in plaintext config, never on argv, never in a recorded byte.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw {

class SecretStore {
 public:
  virtual ~SecretStore() = default;
  virtual std::string backend() const = 0;  // "secret-service" or "encrypted-file (PATH)"
  virtual Result<std::string> get(const std::string& name) = 0;  // Error when absent
  virtual Status set(const std::string& name, const std::string& value) = 0;
  virtual Status remove(const std::string& name) = 0;    // Error when absent
  virtual Result<std::vector<std::string>> names() = 0;  // sorted
};

// Where the encrypted-file backend keeps its files; tests point it elsewhere.
struct SecretStorePaths {
  std::string dir;  // e.g. ~/.config/awaywork/secrets: secrets.enc (0600) and key (0600)
};

// $XDG_CONFIG_HOME/awaywork/secrets or ~/.config/awaywork/secrets.
SecretStorePaths default_secret_store_paths();

// The backend this machine has: Secret Service when a session bus answers (and
// AWAYWORK_SECRET_BACKEND is not "file"), else the encrypted file (key from
// AWAYWORK_SECRETS_PASSPHRASE through argon2id, or a random key in a separate 0600 file).
// AWAYWORK_SECRET_BACKEND=file|secret-service forces one. An empty paths.dir means the default.
Result<std::unique_ptr<SecretStore>> open_secret_store(const SecretStorePaths& paths);

// Whether the Secret Service answers on the session bus (org.freedesktop.secrets owned, with a
// default collection); the Error says why not. For `doctor`, to show why the file was chosen.
Status secret_service_answers();

// Secret names: [A-Za-z_][A-Za-z0-9_]{0,63} (they become environment variable names). The error
// never repeats the name: a mistyped `NAME=value` must not echo the value.
Status check_secret_name(const std::string& name);

// Values: 1..65536 bytes, no NUL byte (they become environment values and D-Bus strings). The
// error never repeats the value.
Status check_secret_value(const std::string& value);

// The compatibility env file ~/.config/awaywork/env (under $XDG_CONFIG_HOME when set).
std::string default_env_file_path();

// KEY=VALUE lines (blank lines, `#` comments and an `export ` prefix allowed; one pair of matching
// quotes around VALUE removed). Read only when the file is a regular file owned by the caller with
// no group/other permission; otherwise an Error naming the chmod fix. A missing file is empty.
// Errors name the line number, never its content.
Result<std::map<std::string, std::string>> read_env_file(const std::string& path);

}  // namespace aw
