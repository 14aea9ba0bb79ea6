// Reading one field of a forge's JSON answer, with the answer's name in each Error: shared by
// GitHub's model (model.cc) and GitLab's (gitlab/model.cc), which read their answers alike.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "base/result.h"

namespace aw::forge_field {

// A field of an object: a string ("" when absent or null, an Error then when required); an
// Error when another type.
Result<std::string> str(const nlohmann::json& j, const char* key, const std::string& what,
                        bool required);
// A whole number field; an Error when absent or another type.
Result<int64_t> integer(const nlohmann::json& j, const char* key, const std::string& what);
// A boolean field that is true; false when absent or another type.
bool flag(const nlohmann::json& j, const char* key);
// An Error unless j is an object.
Status object(const nlohmann::json& j, const std::string& what);

}  // namespace aw::forge_field
