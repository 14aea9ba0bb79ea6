#include "serve/vendor.h"

#include <string>

#include "base/fs.h"

namespace aw {

namespace {

constexpr const char* kJs = "text/javascript; charset=utf-8";

// The library as read at the first request. A function-local static: initialised once, even
// when two connections ask at the same time.
const std::string& highlight_js() {
  static const std::string text = [] {
    auto read = read_file(kHighlightJsPath, 8u << 20);
    if (read && !read->empty()) return *read;
    return std::string(
        "/* awaywork serve: highlight.js is not installed (Debian: apt-get install "
        "libjs-highlight.js, which puts it at " +
        std::string(kHighlightJsPath) + "); the diff is shown without syntax colours. */\n");
  }();
  return text;
}

}  // namespace

const Asset* vendor_asset(std::string_view name) {
  if (name != "highlight.min.js") return nullptr;
  static const Asset asset{"highlight.min.js", kJs, highlight_js()};
  return &asset;
}

}  // namespace aw
