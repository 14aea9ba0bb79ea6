// Internal to the sandbox's host side: the path words plan.cc and view.cc share.
#pragma once

#include <string>

#include "base/result.h"

namespace aw::sandbox {

// Lexically normalized absolute path: no "//", ".", "..", no trailing slash.
Result<std::string> normalize(const std::string& path);
// "~" and "~/..." against home, then normalized.
Result<std::string> expand(const std::string& path, const std::string& home);
// The path with every link resolved: the longest existing prefix through realpath, the missing
// rest appended (the view is built without following links, so it needs link-free paths).
std::string resolved(const std::string& path);
// path is dir or below it.
bool inside(const std::string& path, const std::string& dir);

}  // namespace aw::sandbox
