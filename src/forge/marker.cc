#include "forge/marker.h"

#include <fmt/format.h>

#include "check/sanitize.h"

namespace aw {

std::string with_marker(std::string_view text, std::string_view marker) {
  return defuse_marker_forms(text) + "\n\n" + std::string(marker);
}

std::string item_marker(const std::string& unit_id, const std::string& item,
                        const std::string& sha) {
  return fmt::format("<!-- awaywork:unit={} item={} sha={} -->", unit_id, item, sha);
}

bool has_marker(const std::string& text, const std::string& unit_id, const std::string& item) {
  return text.find(fmt::format("<!-- awaywork:unit={} item={} ", unit_id, item)) !=
         std::string::npos;
}

}  // namespace aw
