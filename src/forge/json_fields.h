// Reading one field of a forge's JSON answer, with the answer's name in each Error: shared by
// GitHub's model (model.cc) and GitLab's (gitlab/model.cc), which read their answers alike.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/result.h"

namespace aw::forge_field {

// A field of an object: a string ("" when absent or null, an Error then when required); an
// Error when another type.
Result<std::string> str(const nlohmann::json& j, const char* key, const std::string& what,
                        bool required);
// One field for strs: its key and where its string goes.
struct StrField {
  const char* key;
  std::string* out;
};
// Optional string fields, read in order each as str(j, key, what, false): the first Error. Lets
// a reader take several on one line, e.g. AW_CHECK(strs(j, what, {{"body", &c.body}})).
Status strs(const nlohmann::json& j, const std::string& what,
            std::initializer_list<StrField> fields);
// A whole number field; an Error when absent or another type.
Result<int64_t> integer(const nlohmann::json& j, const char* key, const std::string& what);
// A boolean field that is true; false when absent or another type.
bool flag(const nlohmann::json& j, const char* key);
// An Error unless j is an object.
Status object(const nlohmann::json& j, const std::string& what);

// A list of objects, each read by one(item, at) with at = "what [index]"; an Error when j is not a
// list, an item not an object, or one's Error.
template <typename T, typename F>
Result<std::vector<T>> list_of(const nlohmann::json& j, const std::string& what, F one) {
  if (!j.is_array()) return fail("{}: expected a list, got {}", what, j.type_name());
  std::vector<T> out;
  size_t i = 0;
  for (const nlohmann::json& x : j) {
    std::string at = fmt::format("{} [{}]", what, i++);
    AW_CHECK(object(x, at));
    AW_TRY(T item, one(x, at));
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace aw::forge_field
