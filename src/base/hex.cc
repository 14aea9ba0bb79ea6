#include "base/hex.h"

namespace aw {

namespace {

// 0..9 -> '0'..'9', 10..15 -> 'a'..'f': 87 + n is 'a' + (n - 10); for n < 10 the mask
// ((n - 10) >> 8, all ones) takes 39 off, giving '0' + n (libsodium's sodium_bin2hex does the
// same).
char digit(unsigned n) {
  return static_cast<char>(87U + n + (((n - 10U) >> 8) & ~38U));
}

}  // namespace

std::string to_hex(std::span<const unsigned char> bytes) {
  std::string out(bytes.size() * 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = digit(bytes[i] >> 4);
    out[2 * i + 1] = digit(bytes[i] & 15U);
  }
  return out;
}

std::string to_hex(std::string_view bytes) {
  return to_hex(std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(bytes.data()),
                                               bytes.size()));
}

}  // namespace aw
