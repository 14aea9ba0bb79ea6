#include "base/sha256.h"

#include <sodium.h>

#include "base/hex.h"

namespace aw {

std::string sha256_hex(std::string_view bytes) {
  unsigned char h[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(h, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return to_hex(h);
}

}  // namespace aw
