// The two backends behind open_secret_store (store.cc chooses). Internal to src/secrets.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "secrets/store.h"

namespace aw {

// The encrypted file in dir: a passphrase (argon2id) when given, else a random key in dir/key.
Result<std::unique_ptr<SecretStore>> open_file_store(const std::string& dir,
                                                     std::optional<std::string> passphrase);

Result<std::unique_ptr<SecretStore>> open_secret_service_store();

}  // namespace aw
