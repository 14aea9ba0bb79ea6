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

std::optional<std::string_view> trailing_marker(std::string_view body) {
  constexpr std::string_view open = "<!-- awaywork:", close = " -->";
  while (!body.empty() &&
         (body.back() == '\n' || body.back() == '\r' || body.back() == ' ' || body.back() == '\t'))
    body.remove_suffix(1);
  size_t nl = body.rfind('\n');
  std::string_view line = nl == std::string_view::npos ? body : body.substr(nl + 1);
  if (line.size() < open.size() + close.size() || !line.starts_with(open) || !line.ends_with(close))
    return std::nullopt;
  return line.substr(open.size(), line.size() - open.size() - close.size());
}

bool has_marker(const std::string& text, const std::string& unit_id, const std::string& item) {
  // Exactly item_marker(unit_id, item, sha) for some sha: one word, no blank after it.
  auto m = trailing_marker(text);
  std::string head = fmt::format("unit={} item={} sha=", unit_id, item);
  return m && m->size() > head.size() && m->starts_with(head) &&
         m->substr(head.size()).find_first_of(" \t") == std::string_view::npos;
}

}  // namespace aw
