// Libraries the dashboard uses that a Debian package installs, served from where it installs them
// rather than embedded: highlight.js is 846 KB, and its package keeps it patched. Read once, at
// the first request, from a fixed path (never from a name in the request).
//   if (const Asset* a = vendor_asset("highlight.min.js")) send(a->content_type, a->bytes);
#pragma once

#include <string_view>

#include "serve/assets.h"

namespace aw {

// Where Debian's libjs-highlight.js puts the library (scripts/deps.d/serve.txt installs it).
inline constexpr const char* kHighlightJsPath =
    "/usr/share/javascript/highlight.js/highlight.min.js";

// "highlight.min.js": the library, or, when it is not installed, a script that defines nothing
// and says so (the page then shows the diff without colours: never a 404, which the browser
// would log as an error). nullptr for any other name.
const Asset* vendor_asset(std::string_view name);

}  // namespace aw
