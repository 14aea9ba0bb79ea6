#include "base/json_escape.h"

#include <fmt/format.h>

namespace aw {

std::string json_escape_bytes(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c < 0x20)
      out += fmt::format("\\u{:04x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

}  // namespace aw
