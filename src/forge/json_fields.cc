#include "forge/json_fields.h"

namespace aw::forge_field {

using nlohmann::json;

Result<std::string> str(const json& j, const char* key, const std::string& what, bool required) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) return fail("{}: the answer has no '{}'", what, key);
    return std::string();
  }
  if (!it->is_string()) return fail("{}: '{}' is {}, not a string", what, key, it->type_name());
  return it->get<std::string>();
}

Status strs(const json& j, const std::string& what, std::initializer_list<StrField> fields) {
  for (const StrField& f : fields) {
    AW_TRY(*f.out, str(j, f.key, what, false));  // a macro of several statements: braces needed
  }
  return {};
}

Result<int64_t> integer(const json& j, const char* key, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer())
    return fail("{}: the answer has no whole number '{}'", what, key);
  return it->get<int64_t>();
}

bool flag(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

Status object(const json& j, const std::string& what) {
  if (!j.is_object()) return fail("{}: expected an object, got {}", what, j.type_name());
  return {};
}

}  // namespace aw::forge_field
