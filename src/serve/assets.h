// The dashboard's files (web/), embedded at build by cmake/embed_web.cmake into assets_web.cc.
// Nothing is fetched at run time.
//   if (const Asset* a = find_asset("app.js")) send(a->content_type, a->bytes);
#pragma once

#include <string_view>

namespace aw {

struct Asset {
  std::string_view name, content_type, bytes;
};

// "index.html", "app.js", "style.css"; nullptr for anything else.
const Asset* find_asset(std::string_view name);

}  // namespace aw
