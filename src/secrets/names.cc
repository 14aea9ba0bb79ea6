#include <cstddef>

#include "secrets/store.h"

namespace aw {

namespace {
bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9');
}
constexpr size_t kMaxName = 64;
constexpr size_t kMaxValue = 65536;
}  // namespace

Status check_secret_name(const std::string& name) {
  const char* rule = "names are a letter or '_' then letters, digits or '_', at most 64";
  if (name.empty()) return fail("the secret name is empty ({})", rule);
  if (name.size() > kMaxName)
    return fail("the secret name is {} characters long ({})", name.size(), rule);
  for (size_t i = 0; i < name.size(); ++i) {
    bool ok = i == 0 ? is_name_start(name[i]) : is_name_char(name[i]);
    // Position only: `NAME=value` typed by mistake must not be echoed.
    if (!ok)
      return fail("the secret name has a character not allowed at position {} ({})", i + 1, rule);
  }
  return {};
}

Status check_secret_value(const std::string& value) {
  if (value.empty()) return fail("the secret value is empty");
  if (value.size() > kMaxValue)
    return fail("the secret value is {} bytes; the limit is {}", value.size(), kMaxValue);
  if (value.find('\0') != std::string::npos)
    return fail("the secret value contains a NUL byte (values become environment variables)");
  return {};
}

}  // namespace aw
