// SHA-256 of bytes, as 64 lowercase hex digits: an artifact's manifest (unit/artifact.cc), the
// fingerprint of a lent login (secrets/codex_login.cc).
//   std::string h = sha256_hex(file_bytes);
#pragma once

#include <string>
#include <string_view>

namespace aw {

// libsodium's crypto_hash_sha256 (it cannot fail, and needs no sodium_init).
std::string sha256_hex(std::string_view bytes);

}  // namespace aw
