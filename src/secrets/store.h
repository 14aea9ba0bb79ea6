// The secret store (DESIGN.md section 4): secrets live in the OS credential store (Secret Service
// through libsecret when a session bus answers) or, where none answers, in an encrypted file
// (libsodium). Never in plaintext config, never on argv, never in a recorded byte.
#pragma once

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
  virtual Status remove(const std::string& name) = 0;
  virtual Result<std::vector<std::string>> names() = 0;
};

// Where the encrypted-file backend keeps its files; tests point it elsewhere.
struct SecretStorePaths {
  std::string dir;  // e.g. ~/.config/awaywork/secrets: secrets.enc (0600) and key (0600)
};

// The backend this machine has: Secret Service when a session bus answers (and
// AWAYWORK_SECRET_BACKEND is not "file"), else the encrypted file (key from
// AWAYWORK_SECRETS_PASSPHRASE through argon2id, or a random key in a separate 0600 file).
Result<std::unique_ptr<SecretStore>> open_secret_store(const SecretStorePaths& paths);

// Secret names: [A-Za-z_][A-Za-z0-9_]{0,63} (they become environment variable names).
Status check_secret_name(const std::string& name);

}  // namespace aw
