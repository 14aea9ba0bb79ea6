// /proc/*/mountinfo's fields as the kernel writes them.
//   std::string point = mountinfo_unescape(fields[4]);  // "/a\040b" -> "/a b"
#pragma once

#include <string>
#include <string_view>

namespace aw {

// mountinfo escapes space, tab, newline and backslash in paths as \ooo (octal); this undoes it.
std::string mountinfo_unescape(std::string_view s);

}  // namespace aw
