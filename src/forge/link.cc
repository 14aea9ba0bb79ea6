// Link pagination (RFC 8288, as GitHub writes it), keeping the token on the API's own base, and
// names escaped into an API URL's path.
#include "forge/link.h"

#include <fmt/format.h>

#include <cctype>

namespace aw {

std::optional<std::string> link_next(const std::string& header) {
  // <URL>; rel="next", <URL>; rel="last"  (RFC 8288; GitHub's shape)
  size_t pos = 0;
  while (pos < header.size()) {
    size_t open = header.find('<', pos);
    if (open == std::string::npos) return std::nullopt;
    size_t close = header.find('>', open);
    if (close == std::string::npos) return std::nullopt;
    size_t end = header.find('<', close);
    std::string params = header.substr(close + 1, end == std::string::npos ? end : end - close - 1);
    std::string url = header.substr(open + 1, close - open - 1);
    for (size_t r = params.find("rel="); r != std::string::npos; r = params.find("rel=", r + 4)) {
      std::string v = params.substr(r + 4);
      if (!v.empty() && v[0] == '"')
        v = v.substr(1, v.find('"', 1) - 1);
      else
        v = v.substr(0, v.find_first_of(";, "));
      // rel may list several names: rel="next last"
      size_t start = 0;
      while (start <= v.size()) {
        size_t sp = v.find(' ', start);
        if (v.substr(start, sp == std::string::npos ? sp : sp - start) == "next") return url;
        if (sp == std::string::npos) break;
        start = sp + 1;
      }
    }
    pos = close + 1;
  }
  return std::nullopt;
}

Result<std::string> target_under(const std::string& url, const std::string& api_url) {
  std::string base = api_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (url.size() > base.size() && url.compare(0, base.size(), base) == 0 &&
      (url[base.size()] == '/' || url[base.size()] == '?'))
    return url.substr(base.size());
  return fail("'{}' is not under {}; not followed", url, base);
}

std::string path_escape(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

}  // namespace aw
