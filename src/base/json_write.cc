#include "base/json_write.h"

#include <nlohmann/json.hpp>

namespace aw {

std::string json_text(const nlohmann::json& j, int indent) {
  // replace: U+FFFD for each byte that is not UTF-8, where the default (strict) throws.
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace aw
