// The bytes of the encrypted store file: a header (magic, key derivation, salt, argon2id limits,
// nonce) authenticated as associated data, then XChaCha20-Poly1305 over the serialized secrets.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "base/result.h"

namespace aw {

enum class KeyKind : uint8_t { key_file = 1, passphrase = 2 };

// A 32-byte key that wipes itself.
struct SecretKey {
  std::array<unsigned char, 32> bytes{};
  SecretKey() = default;
  SecretKey(const SecretKey&) = default;
  SecretKey& operator=(const SecretKey&) = default;
  ~SecretKey();
};

struct KdfParams {
  std::array<unsigned char, 16> salt{};
  uint64_t opslimit = 0, memlimit = 0;
};

struct StoreHeader {
  KeyKind kind = KeyKind::key_file;
  KdfParams kdf;  // zero for key_file
};

// Fresh argon2id parameters (random salt, libsodium's interactive limits). The salt and the
// nonces come from getrandom (base/random.h): an error when the kernel gives no randomness.
Result<KdfParams> new_kdf_params();
Result<SecretKey> derive_key(const std::string& passphrase, const KdfParams& p);

// The header alone, to learn which key a file needs before opening it.
Result<StoreHeader> parse_header(const std::string& file);

Result<std::string> seal_secrets(const std::map<std::string, std::string>& secrets,
                                 const StoreHeader& h, const SecretKey& key);
// Error "does not decrypt" when the key is wrong or a byte was changed.
Result<std::map<std::string, std::string>> open_secrets(const std::string& file,
                                                        const SecretKey& key);

}  // namespace aw
