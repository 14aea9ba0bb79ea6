// Bytes as lowercase hex digits, two a byte: random names and tokens (base/random.h), digests
// (base/sha256.h), git object ids.
//   std::string id = to_hex(raw);  // "\x01\xab" -> "01ab"
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace aw {

// Each digit is computed without a table or a branch on the byte, so the time and the memory it
// reads do not depend on the bytes: safe for key material as well as for ids.
std::string to_hex(std::span<const unsigned char> bytes);
std::string to_hex(std::string_view bytes);

}  // namespace aw
